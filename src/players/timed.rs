//! Decision timing: a [`MakeDecider`] wrapper whose deciders add the wall time of every
//! checker-play decision to a shared [`Clock`], so a duel or match can report each side's
//! mean time per play beside its result (for an engine over TCP: the request, the
//! engine's answer and the reply, which is what a user of that engine waits for).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::engine::Action;
use crate::game::{Decision, MatchState, Play};

use super::{Decide, DecideError, MakeDecider};

/// Checker-play decisions and their total wall time, shared by every decider of a side.
#[derive(Debug, Default)]
pub struct Clock {
    nanos: AtomicU64,
    plays: AtomicU64,
}

impl Clock {
    /// Checker-play decisions timed so far.
    pub fn plays(&self) -> u64 {
        self.plays.load(Ordering::Relaxed)
    }

    /// Mean wall time of one checker-play decision in milliseconds (0 when none).
    pub fn mean_ms(&self) -> f64 {
        let n = self.plays();
        if n == 0 {
            0.0
        } else {
            self.nanos.load(Ordering::Relaxed) as f64 / n as f64 / 1e6
        }
    }

    fn add(&self, started: Instant) {
        let ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(ns, Ordering::Relaxed);
        self.plays.fetch_add(1, Ordering::Relaxed);
    }
}

/// Makes the inner factory's deciders, each timing its checker plays on one clock.
pub struct TimedFactory<'a> {
    inner: &'a dyn MakeDecider,
    clock: Arc<Clock>,
}

impl std::fmt::Debug for TimedFactory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimedFactory")
            .field("inner", &self.inner.name())
            .field("clock", &self.clock)
            .finish()
    }
}

impl<'a> TimedFactory<'a> {
    pub fn new(inner: &'a dyn MakeDecider) -> TimedFactory<'a> {
        TimedFactory {
            inner,
            clock: Arc::new(Clock::default()),
        }
    }

    /// The clock every decider made so far adds to.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

impl MakeDecider for TimedFactory<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn make(&self, worker: usize) -> Result<Box<dyn Decide>, String> {
        Ok(Box::new(Timed {
            inner: self.inner.make(worker)?,
            clock: self.clock.clone(),
        }))
    }
}

struct Timed {
    inner: Box<dyn Decide>,
    clock: Arc<Clock>,
}

impl Decide for Timed {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn new_game(&mut self, seed: u64) {
        self.inner.new_game(seed)
    }

    fn decide(&mut self, state: &MatchState, plays: &[Play]) -> Result<Action, DecideError> {
        let started = Instant::now();
        let answer = self.inner.decide(state, plays);
        if matches!(state.decision, Decision::Move(_)) {
            self.clock.add(started);
        }
        answer
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::game::{legal_plays, Dice, Position};
    use crate::players::build::factory;
    use crate::players::BuildOptions;

    #[test]
    fn checker_plays_are_timed_and_cube_questions_are_not() {
        let inner = factory("net", BuildOptions { cube: true }).unwrap();
        let timed = TimedFactory::new(&inner);
        let mut d = timed.make(0).unwrap();
        let dice = Dice::new(3, 1).unwrap();
        let plays = legal_plays(&Position::OPENING, dice);
        let state = MatchState::money(Position::OPENING, Decision::Move(dice));
        for _ in 0..3 {
            assert!(matches!(d.decide(&state, &plays), Ok(Action::Move(_))));
        }
        let cube = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        d.decide(&cube, &[]).unwrap();
        assert_eq!(timed.clock().plays(), 3);
        assert!(timed.clock().mean_ms() > 0.0);
        assert_eq!(timed.name(), "net");
    }
}
