//! The time limit of every wait of the FIBS bot, kept apart from the connection so that it
//! can be tested without one.
//!
//! The client tells a [`Watch`] what it is waiting for (a [`Phase`]) and when something
//! moved on; the watch says when the next limit passes and, once it has, what to do
//! ([`Step`]). Each phase has its own ladder of steps measured from the last progress:
//! waiting for a board, it asks again every `board_ms`; at its own turn before a roll
//! the server does not make, it rolls after `roll_ms`; waiting for the opponent it asks
//! for the board, reminds, and at last leaves the match (the server saves it).

use std::time::{Duration, Instant};

use super::config::WatchdogConfig;

/// What the bot is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// No match: nothing is owed; idle chores (re-inviting saved opponents) are due.
    Idle,
    /// An invitation was joined (`join NAME`) or sent (`invite NAME`): the match should
    /// begin.
    Joining,
    /// The bot needs a board to act on (it asked for one after a prompt).
    OwnBoard,
    /// The bot answered a board (a move, a roll, a cube answer); the next board should
    /// differ.
    Answered,
    /// The bot's turn before the roll without cube access: the server should roll.
    ServerRoll,
    /// The opponent is to act: a roll or move, an answer to the bot's double or
    /// resignation.
    Opponent,
    /// The bot joined the next game of the match (`join`); the game should begin. The
    /// `join` is repeated every `join_ms` until the reminder is due.
    NextGame,
}

impl Phase {
    /// The bot's own move is due in this phase (a long silence here is the bot's fault).
    pub fn bot_due(self) -> bool {
        matches!(self, Phase::OwnBoard | Phase::Answered | Phase::ServerRoll)
    }
}

/// What to do when a limit has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// Ask for the board again (`board`).
    Board,
    /// Roll (`roll`): the server did not.
    Roll,
    /// Send the `join` or `invite` once more.
    Rejoin,
    /// Give the invitation up.
    GiveUp,
    /// Remind the opponent (`tell`).
    Remind,
    /// Leave the match (saved by the server).
    Leave,
    /// With no match: invite saved opponents who are online, or an idle player.
    Reinvite,
}

impl Step {
    pub const ALL: [Step; 7] = [
        Step::Board,
        Step::Roll,
        Step::Rejoin,
        Step::GiveUp,
        Step::Remind,
        Step::Leave,
        Step::Reinvite,
    ];

    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Step::Board => "board",
            Step::Roll => "roll",
            Step::Rejoin => "rejoin",
            Step::GiveUp => "give_up",
            Step::Remind => "remind",
            Step::Leave => "leave",
            Step::Reinvite => "reinvite",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// The phase, since when nothing moved on, and how many steps were taken since.
#[derive(Debug, Clone)]
pub struct Watch {
    phase: Phase,
    since: Instant,
    fired: u32,
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

impl Watch {
    pub fn new(now: Instant) -> Watch {
        Watch {
            phase: Phase::Idle,
            since: now,
            fired: 0,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// When the phase's clock started.
    pub fn since(&self) -> Instant {
        self.since
    }

    /// Enters `phase` with its clock restarted.
    pub fn enter(&mut self, phase: Phase, now: Instant) {
        self.phase = phase;
        self.since = now;
        self.fired = 0;
    }

    /// Enters `phase`, restarting the clock only if the phase changes.
    pub fn stay_or_enter(&mut self, phase: Phase, now: Instant) {
        if self.phase != phase {
            self.enter(phase, now);
        }
    }

    /// Something moved on: the clock of the current phase restarts.
    pub fn progress(&mut self, now: Instant) {
        self.since = now;
        self.fired = 0;
    }

    /// The next step of the phase and when it is due, or None when the phase has none
    /// left.
    pub fn next(&self, cfg: &WatchdogConfig) -> Option<(Instant, Step)> {
        let k = self.fired;
        let (after, step) = match self.phase {
            Phase::Idle => (ms(cfg.reinvite_ms) * (k + 1), Step::Reinvite),
            Phase::Joining => match k {
                0 => (ms(cfg.join_ms), Step::Rejoin),
                1 => (ms(cfg.join_ms) * 2, Step::GiveUp),
                _ => return None,
            },
            Phase::OwnBoard | Phase::Answered => (ms(cfg.board_ms) * (k + 1), Step::Board),
            Phase::ServerRoll => match k {
                0 => (ms(cfg.roll_ms), Step::Roll),
                _ => (ms(cfg.roll_ms) + ms(cfg.board_ms) * k, Step::Board),
            },
            Phase::Opponent => match k {
                0 => (ms(cfg.opponent_board_ms), Step::Board),
                1 => (ms(cfg.opponent_remind_ms), Step::Remind),
                2 => (ms(cfg.opponent_leave_ms), Step::Leave),
                _ => return None,
            },
            // The bot's `join` is sent again every `join_ms` until the reminder is due
            // (a lost `join` keeps the game from starting); then the opponent's ladder.
            Phase::NextGame => {
                let rejoins = ((cfg.opponent_remind_ms - 1) / cfg.join_ms) as u32;
                if k < rejoins {
                    (ms(cfg.join_ms) * (k + 1), Step::Rejoin)
                } else if k == rejoins {
                    (ms(cfg.opponent_remind_ms), Step::Remind)
                } else if k == rejoins + 1 {
                    (ms(cfg.opponent_leave_ms), Step::Leave)
                } else {
                    return None;
                }
            }
        };
        Some((self.since + after, step))
    }

    /// The step due at `now`, if any (and counts it as taken).
    pub fn fire(&mut self, cfg: &WatchdogConfig, now: Instant) -> Option<Step> {
        let (at, step) = self.next(cfg)?;
        if now < at {
            return None;
        }
        self.fired += 1;
        Some(step)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cfg() -> WatchdogConfig {
        WatchdogConfig {
            board_ms: 100,
            roll_ms: 50,
            join_ms: 200,
            opponent_board_ms: 300,
            opponent_remind_ms: 1000,
            opponent_leave_ms: 2000,
            reinvite_ms: 500,
            ..WatchdogConfig::default()
        }
    }

    /// Every step the watch takes from `t0` to `t0 + until`, with its time.
    fn ladder(w: &mut Watch, until: u64, t0: Instant) -> Vec<(u64, Step)> {
        let c = cfg();
        let mut out = Vec::new();
        while let Some((at, _)) = w.next(&c) {
            if at > t0 + ms(until) {
                break;
            }
            let step = w.fire(&c, at).unwrap();
            out.push(((at - t0).as_millis() as u64, step));
        }
        out
    }

    #[test]
    fn a_turn_the_server_does_not_roll_is_rolled_then_asked_for() {
        let t0 = Instant::now();
        let mut w = Watch::new(t0);
        w.enter(Phase::ServerRoll, t0);
        assert_eq!(
            ladder(&mut w, 260, t0),
            vec![(50, Step::Roll), (150, Step::Board), (250, Step::Board)]
        );
    }

    #[test]
    fn a_quiet_opponent_is_asked_reminded_and_left() {
        let t0 = Instant::now();
        let mut w = Watch::new(t0);
        w.enter(Phase::Opponent, t0);
        assert!(w.fire(&cfg(), t0 + ms(299)).is_none());
        assert_eq!(
            ladder(&mut w, 10_000, t0),
            vec![
                (300, Step::Board),
                (1000, Step::Remind),
                (2000, Step::Leave)
            ]
        );
        assert!(w.next(&cfg()).is_none());
    }

    #[test]
    fn progress_restarts_the_ladder_and_the_same_phase_keeps_it() {
        let t0 = Instant::now();
        let mut w = Watch::new(t0);
        w.enter(Phase::Opponent, t0);
        assert_eq!(w.fire(&cfg(), t0 + ms(300)), Some(Step::Board));
        // A board that shows the same wait does not restart the clock ...
        w.stay_or_enter(Phase::Opponent, t0 + ms(400));
        assert_eq!(w.next(&cfg()).unwrap(), (t0 + ms(1000), Step::Remind));
        // ... the opponent's move does.
        w.progress(t0 + ms(500));
        assert_eq!(w.next(&cfg()).unwrap(), (t0 + ms(800), Step::Board));
        w.stay_or_enter(Phase::Answered, t0 + ms(600));
        assert_eq!(w.next(&cfg()).unwrap(), (t0 + ms(700), Step::Board));
    }

    #[test]
    fn joins_are_repeated_once_then_given_up_and_idle_reinvites_repeat() {
        let t0 = Instant::now();
        let mut w = Watch::new(t0);
        w.enter(Phase::Joining, t0);
        assert_eq!(
            ladder(&mut w, 10_000, t0),
            vec![(200, Step::Rejoin), (400, Step::GiveUp)]
        );
        w.enter(Phase::NextGame, t0);
        assert_eq!(
            ladder(&mut w, 10_000, t0),
            vec![
                (200, Step::Rejoin),
                (400, Step::Rejoin),
                (600, Step::Rejoin),
                (800, Step::Rejoin),
                (1000, Step::Remind),
                (2000, Step::Leave)
            ]
        );
        w.enter(Phase::Idle, t0);
        assert_eq!(
            ladder(&mut w, 1100, t0),
            vec![(500, Step::Reinvite), (1000, Step::Reinvite)]
        );
        w.enter(Phase::OwnBoard, t0);
        assert_eq!(
            ladder(&mut w, 250, t0),
            vec![(100, Step::Board), (200, Step::Board)]
        );
        assert!(Phase::OwnBoard.bot_due() && !Phase::Opponent.bot_due());
    }
}
