"""Quantization-aware fine-tuning for `quantize.py`: a network trained with the rounding that
ONNX Runtime's static quantization will apply, so that the 8-bit model reads as the float one.

`prepare(net)` makes every 3x3 convolution use its weights rounded as `quantize.py` rounds them
(per output channel, symmetric, 7 bits: -64..64 steps of the channel's largest weight / 64)
and rounds every activation that ONNX Runtime quantizes (the input, the output of each ReLU
and each concatenation a convolution reads) to 8 bits over the range it has seen so far (a
running minimum and maximum); gradients pass the rounding unchanged (straight-through). The
1x1 and fully connected output layers stay float, as `quantize.py --float-heads` leaves them.
A batch norm's scale folded into the weights later keeps them on the same steps (the steps
are per output channel), so the folded model quantizes to the weights trained here.

`plain(net)` is a copy without the rounding, its weights left on their steps, for export.
`frozen_copy(net)`, taken before `prepare`, is the float teacher of the trainers' --distill.
"""

from __future__ import annotations

import copy

import torch
import torch.nn as nn

# quantize.py --weights s7: ONNX Runtime's reduce_range for signed 8-bit weights.
WEIGHT_STEPS = 64
# Activations: unsigned 8 bits, per tensor.
ACT_MAX = 255
# How fast the running range follows each batch's (an exponential mean of batch extremes).
MOMENTUM = 0.05


def weight_steps(w: torch.Tensor) -> torch.Tensor:
    """A convolution's weights rounded per output channel to WEIGHT_STEPS steps each way."""
    scale = w.detach().abs().flatten(1).amax(1).clamp(min=1e-8) / WEIGHT_STEPS
    zero = torch.zeros(w.shape[0], dtype=torch.int32, device=w.device)
    return torch.fake_quantize_per_channel_affine(w, scale, zero, 0, -WEIGHT_STEPS, WEIGHT_STEPS)


class StepConv2d(nn.Conv2d):
    """A convolution that uses its weights rounded (`weight_steps`)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._conv_forward(x, weight_steps(self.weight), self.bias)


class ActSteps(nn.Module):
    """An activation rounded to 8 bits over the running range of what it has seen."""

    def __init__(self):
        super().__init__()
        self.register_buffer("lo", torch.tensor(float("nan")))
        self.register_buffer("hi", torch.tensor(float("nan")))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            lo, hi = x.detach().min().clamp(max=0.0), x.detach().max().clamp(min=0.0)
            if torch.isnan(self.lo):
                self.lo.copy_(lo)
                self.hi.copy_(hi)
            else:
                self.lo.lerp_(lo, MOMENTUM)
                self.hi.lerp_(hi, MOMENTUM)
        scale = float((self.hi - self.lo).clamp(min=1e-8)) / ACT_MAX
        zero = int(round(float(-self.lo) / scale))
        return torch.fake_quantize_per_tensor_affine(x, scale, zero, 0, ACT_MAX)


def _output_hook(module, _inputs, output):
    return module.act_steps(output)


def _input_hook(module, inputs):
    return (module.act_steps(inputs[0]), *inputs[1:])


def prepare(net: nn.Module, concat_inputs: tuple[str, ...] = ()) -> nn.Module:
    """Rounds `net` as `quantize.py` will (in place; returns it). `concat_inputs` names the
    modules whose input is a concatenation (its range is quantized on its own)."""
    first = True
    for name, mod in list(net.named_modules()):
        if isinstance(mod, nn.Conv2d) and mod.kernel_size != (1, 1):
            mod.__class__ = StepConv2d
            if first:
                mod.act_steps = ActSteps()
                mod.register_forward_pre_hook(_input_hook)
                first = False
        elif isinstance(mod, nn.ReLU):
            mod.act_steps = ActSteps()
            mod.register_forward_hook(_output_hook)
        if name in concat_inputs:
            mod.act_steps = ActSteps()
            mod.register_forward_pre_hook(_input_hook)
    return net


def plain(net: nn.Module) -> nn.Module:
    """A copy of a prepared `net` without the rounding: its weights as rounded, the activations
    float (ONNX Runtime calibrates their ranges itself)."""
    out = copy.deepcopy(net)
    for mod in list(out.modules()):
        if isinstance(mod, StepConv2d):
            mod.__class__ = nn.Conv2d
            with torch.no_grad():
                mod.weight.copy_(weight_steps(mod.weight))
        mod._forward_hooks.clear()
        mod._forward_pre_hooks.clear()
        if hasattr(mod, "act_steps"):
            del mod.act_steps
    return out


def frozen_copy(net: nn.Module) -> nn.Module:
    """The network as it starts, for --distill: evaluation mode, no gradients."""
    teacher = copy.deepcopy(net).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher
