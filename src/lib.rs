//! suanfan (算番): reads a Chinese Official Mahjong (MCR) hand and scores it.
//!
//! The stages (see the README): `tile` and `notation` (the tiles and how they are written),
//! `scoring` (the pure scoring engine), `table` (tiles found in a picture to a hand: how they
//! lie, then the most probable valid hand), `explain` (text for players), and `json` (the corpus
//! JSON form, behind the `serde` feature).

#[cfg(all(feature = "vision", feature = "serde"))]
pub mod annotate;
#[cfg(feature = "cli")]
pub mod audit;
#[cfg(feature = "serde")]
pub mod batch;
#[cfg(all(feature = "vision", feature = "serde"))]
pub mod capture;
pub mod detection;
pub mod explain;
#[cfg(feature = "gui")]
pub mod gui;
#[cfg(feature = "serde")]
pub mod json;
#[cfg(all(feature = "vision", feature = "serde"))]
pub mod live;
pub mod notation;
#[cfg(all(feature = "vision", feature = "serde"))]
pub mod scan;
pub mod scoring;
pub mod table;
pub mod tile;
#[cfg(feature = "vision")]
pub mod track;
#[cfg(feature = "vision")]
pub mod vision;
