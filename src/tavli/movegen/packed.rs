//! Steps as the search builds them, in the memory layout of `[TavliStep; 4]`.

use crate::tavli::TavliStep;

/// Up to four steps as two little-endian words, step i in bytes 4i (from), 4i + 1
/// (to) and 4i + 2 (the mark, 0 or 1; byte 4i + 3 is the step's padding): the layout
/// of `[TavliStep; 4]` (`repr(C)`, four bytes a step), so a play's steps are written
/// by one copy. The field is private to this module: every value is made by
/// [`Packed::with`] from `NONE` (or `Default`, the same), which keeps each mark byte 0
/// or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Packed([u64; 2]);

// The layout `steps` relies on.
const _: () = assert!(std::mem::size_of::<[TavliStep; 4]>() == 16);
const _: () = assert!(std::mem::size_of::<TavliStep>() == 4);

impl Packed {
    pub(super) const NONE: Packed = Packed([0; 2]);

    /// With one more step, the step of index `depth` (0..=3; a constant where the
    /// callers' loops are written out, so the shift is a move of whole words).
    #[inline]
    pub(super) fn with(self, depth: u8, from: usize, to: u8, mark: bool) -> Packed {
        let s = u64::from(from as u8) | u64::from(to) << 8 | u64::from(mark) << 16;
        let mut words = self.0;
        words[usize::from(depth >> 1 & 1)] |= s << (32 * u32::from(depth & 1));
        Packed(words)
    }

    /// The steps, unused ones zero.
    #[inline]
    pub(super) fn steps(self) -> [TavliStep; 4] {
        // SAFETY: `[TavliStep; 4]` is 16 bytes (checked above) of four `repr(C)`
        // steps, each `from: u8` at byte 0, `to: u8` at 1, `mark: bool` at 2 and one
        // byte of padding. Any byte is a valid `u8` and padding may hold anything;
        // the mark bytes hold 0 or 1: zero in `NONE`, and `with` ORs into a mark byte
        // only a `bool` cast to 0 or 1 (the step's other bits fall in its `from` and
        // `to` bytes), so every value this type can hold is a valid `[TavliStep; 4]`.
        unsafe { std::mem::transmute::<[u64; 2], [TavliStep; 4]>(self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packed steps unpack to the steps packed, at every depth.
    #[test]
    fn packed_steps_round_trip() {
        let steps = [(25, 20, true), (13, 7, false), (6, 0, false), (24, 1, true)];
        let mut packed = Packed::NONE;
        for (depth, &(from, to, mark)) in steps.iter().enumerate() {
            packed = packed.with(depth as u8, from, to, mark);
        }
        for (st, &(from, to, mark)) in packed.steps().iter().zip(&steps) {
            assert_eq!(
                *st,
                TavliStep {
                    from: from as u8,
                    to,
                    mark
                }
            );
        }
    }
}
