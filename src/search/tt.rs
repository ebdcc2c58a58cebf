//! The transposition table: lock-free, shared by every search thread and every
//! concurrent decision.
//!
//! Each entry is two `AtomicU64` words: `data` (value, depth, bound, best play,
//! generation) and `check = key ^ data`. Writers store both words with relaxed ordering;
//! a reader loads both and accepts the entry only when `check ^ data` equals the key it
//! looks for. A reader that races with a writer may see the new `data` with the old
//! `check` (or the reverse); the XOR test then fails and the probe counts as a miss, so a
//! torn entry is never returned. This is the classic lockless-hashing scheme of chess
//! programs: no locks, no allocation, one cache line per probe.
//!
//! Entries live in buckets of four (64 bytes, one cache line). The bucket is chosen from
//! the key's high bits by multiply-shift, and the full 64-bit key is verified through the
//! XOR. Replacement prefers, in order: the slot already holding the key, an empty slot,
//! an entry from an older search generation, the shallowest entry.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::value::Value;

/// What a stored value says about the node's true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The value is exact.
    Exact,
    /// The true value is at least the stored value (the search failed high).
    Lower,
    /// The true value is at most the stored value (the search failed low).
    Upper,
}

/// One decoded table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtEntry {
    pub value: Value,
    /// Remaining depth the value was searched to.
    pub depth: u8,
    pub bound: Bound,
    /// Index of the best play in the deterministic play list of the node, if any.
    pub best: Option<u16>,
}

const NO_BEST: u64 = 0xFFFF;
const WAYS: usize = 4;

#[derive(Debug, Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

#[derive(Debug, Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; WAYS],
}

/// A lock-free transposition table. Cheap to share as `Arc<TranspositionTable>`.
#[derive(Debug)]
pub struct TranspositionTable {
    buckets: Box<[Bucket]>,
    generation: AtomicU8,
}

// data layout: bits 0..32 value, 32..40 depth, 40..42 bound (1..=3, never 0 in a used
// entry), 42..48 generation, 48..64 best play index.
fn pack(value: Value, depth: u8, bound: Bound, generation: u8, best: Option<u16>) -> u64 {
    let b = match bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    let best = best.map_or(NO_BEST, |i| (i as u64).min(NO_BEST - 1));
    (value as u32 as u64)
        | (depth as u64) << 32
        | b << 40
        | ((generation & 63) as u64) << 42
        | best << 48
}

fn unpack(data: u64) -> Option<(TtEntry, u8)> {
    let bound = match (data >> 40) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    let best = data >> 48;
    Some((
        TtEntry {
            value: data as u32 as i32,
            depth: (data >> 32) as u8,
            bound,
            best: if best == NO_BEST {
                None
            } else {
                Some(best as u16)
            },
        },
        ((data >> 42) & 63) as u8,
    ))
}

/// Asks Linux to back `memory` (just allocated, not yet touched) with huge pages where it
/// can: a probe lands anywhere in a table of tens of megabytes, and with 4 KB pages nearly
/// every one also missed the address-translation cache. Advice only: the memory is the
/// same whether or not it is taken.
fn huge_pages<T>(memory: &mut [std::mem::MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = memory.as_mut_ptr() as usize;
        let first = start.next_multiple_of(PAGE);
        let end = start.saturating_add(std::mem::size_of_val(memory)) / PAGE * PAGE;
        if end > first {
            // SAFETY: the range lies within `memory`, page-aligned as madvise requires;
            // MADV_HUGEPAGE changes how the kernel backs the pages, not their contents or
            // who may use them, and an error (no such support) is ignored.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

impl TranspositionTable {
    /// A table of about `megabytes` MB (at least one bucket).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let bytes = megabytes.saturating_mul(1 << 20);
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut v: Vec<Bucket> = Vec::with_capacity(n);
        huge_pages(v.spare_capacity_mut());
        v.resize_with(n, Bucket::default);
        TranspositionTable {
            buckets: v.into_boxed_slice(),
            generation: AtomicU8::new(0),
        }
    }

    /// Number of entries the table can hold.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * WAYS
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Starts a new generation: older entries stay usable but are replaced first.
    pub fn new_generation(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// Empties the table. Concurrent searches stay safe (they only see misses).
    pub fn clear(&self) {
        for b in self.buckets.iter() {
            for s in &b.slots {
                s.data.store(0, Ordering::Relaxed);
                s.check.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Asks the processor to bring `key`'s bucket into its cache, so that a probe or store
    /// of it soon after does not wait for memory (a hint: nothing is read or changed).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: a prefetch is a hint that never faults, whatever the address (here
            // a live bucket), and SSE, which it needs, is part of every x86-64 processor.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks `key` up.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let b = self.bucket(key);
        for s in &b.slots {
            let data = s.data.load(Ordering::Relaxed);
            let check = s.check.load(Ordering::Relaxed);
            if check ^ data == key {
                return unpack(data).map(|(e, _)| e);
            }
        }
        None
    }

    /// Stores a result for `key`.
    pub fn store(&self, key: u64, depth: u8, bound: Bound, value: Value, best: Option<u16>) {
        let generation = self.generation.load(Ordering::Relaxed) & 63;
        let data = pack(value, depth, bound, generation, best);
        let b = self.bucket(key);
        let mut victim = 0;
        let mut victim_score = i32::MAX;
        for (i, s) in b.slots.iter().enumerate() {
            let d = s.data.load(Ordering::Relaxed);
            let c = s.check.load(Ordering::Relaxed);
            if c ^ d == key {
                // Same node: keep a deeper result from this generation.
                if let Some((old, g)) = unpack(d) {
                    if g == generation && old.depth > depth {
                        return;
                    }
                }
                victim = i;
                break;
            }
            let score = match unpack(d) {
                None => i32::MIN,
                Some((e, g)) => {
                    let age = (generation.wrapping_sub(g) & 63) as i32;
                    e.depth as i32 - 64 * age
                }
            };
            if score < victim_score {
                victim_score = score;
                victim = i;
            }
        }
        let s = &b.slots[victim];
        s.data.store(data, Ordering::Relaxed);
        s.check.store(key ^ data, Ordering::Relaxed);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let t = TranspositionTable::new(1);
        assert!(t.capacity() >= 4 * 16384);
        assert_eq!(t.probe(12345), None);
        t.store(12345, 3, Bound::Lower, -77, Some(9));
        assert_eq!(
            t.probe(12345),
            Some(TtEntry {
                value: -77,
                depth: 3,
                bound: Bound::Lower,
                best: Some(9)
            })
        );
        // A shallower result for the same node does not replace a deeper one.
        t.store(12345, 1, Bound::Exact, 5, None);
        assert_eq!(t.probe(12345).map(|e| e.depth), Some(3));
        t.store(12345, 5, Bound::Exact, 5, None);
        assert_eq!(t.probe(12345).map(|e| (e.depth, e.value)), Some((5, 5)));
        t.clear();
        assert_eq!(t.probe(12345), None);
    }

    #[test]
    fn a_bucket_keeps_four_keys_and_evicts_shallow_ones() {
        let t = TranspositionTable::new(0);
        // One bucket: every key collides.
        for k in 1..=4u64 {
            t.store(k, k as u8, Bound::Exact, k as i32, None);
        }
        for k in 1..=4u64 {
            assert_eq!(t.probe(k).map(|e| e.value), Some(k as i32));
        }
        t.store(99, 9, Bound::Exact, 99, None);
        assert_eq!(t.probe(1), None, "the shallowest entry is evicted");
        assert_eq!(t.probe(99).map(|e| e.value), Some(99));
    }
}
