//! Match files for other programs, one module per format: the Jellyfish `.mat` text
//! format that gnubg imports is in [`mat`], gnubg's own SGF dialect in [`sgf`]. The
//! readers are in `notation::match_file`.

pub mod mat;
pub mod sgf;

pub use mat::write_mat;
pub use sgf::write_sgf;
