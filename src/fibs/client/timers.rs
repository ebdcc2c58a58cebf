//! What the account does when a wait runs out: a pending invitation expires, a finished
//! `show saved` table is applied, and each step the watchdog takes (ask for the board
//! again, roll, re-send a join, remind or leave an absent opponent, invite again).

use std::time::{Duration, Instant};

use super::{Client, FibsError, Flow, Pending, Session, Writer};
use crate::fibs::config::DeclineReason;
use crate::fibs::metrics::MatchEnd;
use crate::fibs::watchdog::{Phase, Step};

impl Client {
    /// The watchdog, pending invitations and a finished `show saved` table.
    pub(super) async fn on_timer(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        now: Instant,
    ) -> Result<Flow, FibsError> {
        if s.saved_rows.is_some() {
            self.apply_saved_rows(w, s).await?;
        }
        let join = Duration::from_millis(self.config.watchdog.join_ms);
        let expired: Vec<Pending> = s
            .pending
            .iter()
            .filter(|p| now >= p.since + join)
            .cloned()
            .collect();
        s.pending.retain(|p| now < p.since + join);
        for p in expired {
            self.decline(
                w,
                s,
                &p.from,
                p.kind,
                DeclineReason::Unknown,
                "Sorry, I could not look you up in time; please invite me again.".into(),
            )
            .await?;
        }
        while let Some(step) = s.watch.fire(&self.config.watchdog, now) {
            if self.watchdog_step(w, s, step, now).await? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Go)
    }

    pub(super) async fn watchdog_step(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        step: Step,
        now: Instant,
    ) -> Result<Flow, FibsError> {
        let phase = s.watch.phase();
        if step != Step::Reinvite {
            self.stats.watchdog_firings += 1;
            self.metrics.watchdog_fired(step);
            tracing::info!(
                "fibs: {}: waited {:.1} s ({phase:?}): {}",
                self.user,
                now.saturating_duration_since(s.watch.since()).as_secs_f64(),
                step.label()
            );
        }
        match step {
            Step::Board => {
                if matches!(phase, Phase::OwnBoard | Phase::Answered) {
                    s.reanswer = true;
                }
                self.send(w, "board", false).await?;
            }
            Step::Roll => self.send(w, "roll", false).await?,
            Step::Rejoin => match (phase, s.joining.clone()) {
                (Phase::Joining, Some((_, cmd))) => self.send(w, &cmd, false).await?,
                (Phase::NextGame, _) => self.send(w, "join", false).await?,
                _ => {}
            },
            Step::GiveUp => {
                if let Some((name, _)) = s.joining.take() {
                    tracing::info!("fibs: {}: no match with {name} began; giving up", self.user);
                }
                s.watch.enter(Phase::Idle, now);
            }
            Step::Remind => {
                if let Some(o) = self.memory.opponent.clone() {
                    let text = self.config.watchdog.reminder.clone();
                    self.send_to(w, "tell", &o, &text).await?;
                }
            }
            Step::Leave => {
                let Some(o) = self.memory.opponent.take() else {
                    s.watch.enter(Phase::Idle, now);
                    return Ok(Flow::Go);
                };
                self.send(w, "leave", false).await?;
                self.stats.matches_left += 1;
                self.metrics.match_ended(MatchEnd::Left);
                self.metrics.set_in_match(false);
                self.status_line("left (the opponent stayed away; the match is saved)");
                self.remember_saved(&o);
                s.forget_answers();
                s.watch.enter(Phase::Idle, now);
                if self.draining.is_some() {
                    return self.bye(w, "stopping").await;
                }
            }
            Step::Reinvite => self.idle_chores(w, s, now).await?,
        }
        Ok(Flow::Go)
    }
}
