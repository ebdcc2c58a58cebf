//! Match files for other programs, one module per format: the Jellyfish `.mat` text
//! format that gnubg imports is in [`mat`]. Writers of other match files (such as `.sgf`)
//! belong beside it.

pub mod mat;

pub use mat::write_mat;
