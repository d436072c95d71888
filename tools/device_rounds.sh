# Sourced by the device_*_rounds.sh scripts (from tools/): rounds of one trainer side by side on
# one GPU, each writing its model and log under /tmp/$ROUNDS/, all tarred into $OUT/$ROUNDS.tar
# as they come (so a run cut short still gives back what it made). Before `run`, set ROUNDS (a
# folder name), TRAINER (train_detector.py or train_classifier.py), MODEL (the file each round
# writes) and common (the flags every round shares).

# One round: `run NAME FLAGS...`; says when it ends and how.
run() {
    name=$1
    shift
    mkdir -p "/tmp/$ROUNDS/$name"
    # shellcheck disable=SC2086 # $common is a list of flags
    python3 "$TRAINER" $common "$@" --out "/tmp/$ROUNDS/$name/$MODEL" > "/tmp/$ROUNDS/$name.log" 2>&1
    echo "$name done rc=$? at $SECONDS s"
}

pack() { tar cf "$OUT/$ROUNDS.tmp" -C /tmp "$ROUNDS" && mv "$OUT/$ROUNDS.tmp" "$OUT/$ROUNDS.tar"; }

# Waits for the rounds started in the background (their pids in the array `pids`), packing
# every $1 seconds and counting the epochs done; packs once more at the end.
watch_rounds() {
    (while sleep "$1"; do
        pack
        echo "t=$SECONDS: $(grep -h '^epoch' /tmp/"$ROUNDS"/*.log | wc -l) epochs done"
    done) &
    local watcher=$!
    wait "${pids[@]}"
    kill "$watcher"
    pack
}
