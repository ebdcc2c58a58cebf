//! Invitations and saved matches: the invitations the account sends while it has no match
//! (opponents of saved matches, `autoinvite`), how it judges and answers those it
//! receives by the policy (asking the server what the policy needs first), and the list
//! of saved matches the server reports.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::{Client, FibsError, Pending, Saved, Session, Writer};
use crate::fibs::clip::{valid_name, InviteKind, WhoInfo};
use crate::fibs::config::{DeclineReason, Inviter, Lookup, Verdict};
use crate::fibs::watchdog::Phase;

/// A player is invited by `autoinvite` at most this often.
const AUTOINVITE_AGAIN: Duration = Duration::from_secs(3600);

impl Client {
    /// With no match: invite an online opponent of a saved match, or (`autoinvite`) an
    /// idle player who is ready.
    pub(super) async fn idle_chores(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        now: Instant,
    ) -> Result<(), FibsError> {
        if self.memory.opponent.is_some() || s.joining.is_some() || self.draining.is_some() {
            return Ok(());
        }
        let policy = &self.config.invitations;
        // An opponent who did not come back when invited is asked again only after the
        // time the bot waits for an opponent (or when they log in anew).
        let again = Duration::from_millis(self.config.watchdog.opponent_leave_ms);
        let mut saved: Vec<&Saved> = self
            .memory
            .saved
            .values()
            .filter(|m| s.is_online(&m.name) && policy.listed_ok(&m.name))
            .filter(|m| {
                self.memory
                    .resume_invited
                    .get(&m.name.to_ascii_lowercase())
                    .is_none_or(|&t| now.saturating_duration_since(t) >= again)
            })
            .collect();
        saved.sort_by(|a, b| a.name.cmp(&b.name));
        if let Some(m) = saved.first() {
            let name = m.name.clone();
            self.memory
                .resume_invited
                .insert(name.to_ascii_lowercase(), now);
            self.invite(w, s, &name, format!("invite {name}"), now)
                .await?;
            return Ok(());
        }
        if !policy.autoinvite {
            return Ok(());
        }
        let every = Duration::from_secs(policy.autoinvite_every_s);
        if self
            .memory
            .last_autoinvite
            .is_some_and(|t| now.saturating_duration_since(t) < every)
        {
            return Ok(());
        }
        let me = self.user.to_ascii_lowercase();
        let mut candidates: Vec<&WhoInfo> = s
            .who
            .values()
            .filter(|p| {
                let key = p.name.to_ascii_lowercase();
                key != me
                    && p.ready
                    && !p.away
                    && p.opponent.is_none()
                    && valid_name(&p.name)
                    && self
                        .memory
                        .autoinvited
                        .get(&key)
                        .is_none_or(|&t| now.saturating_duration_since(t) >= AUTOINVITE_AGAIN)
            })
            .filter(|p| {
                let who = Inviter {
                    name: p.name.clone(),
                    rating: Some(p.rating),
                    experience: Some(p.experience),
                    saved_count: Some(0),
                    recent_matches: self.recent_matches(&p.name, now),
                };
                policy.judge(&who, InviteKind::Points(policy.autoinvite_length)) == Verdict::Join
            })
            .collect();
        candidates.sort_by(|a, b| a.name.cmp(&b.name));
        if let Some(p) = candidates.first() {
            let name = p.name.clone();
            let len = policy.autoinvite_length;
            self.memory.last_autoinvite = Some(now);
            self.memory
                .autoinvited
                .insert(name.to_ascii_lowercase(), now);
            tracing::info!(
                "fibs: {}: inviting {name} to a {len} point match",
                self.user
            );
            self.invite(w, s, &name, format!("invite {name} {len}"), now)
                .await?;
        }
        Ok(())
    }

    /// Sends `cmd` (a `join NAME` or `invite NAME ...`) and waits for the match to begin.
    pub(super) async fn invite(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        name: &str,
        cmd: String,
        now: Instant,
    ) -> Result<(), FibsError> {
        if !valid_name(name) {
            return Ok(());
        }
        self.send(w, &cmd, false).await?;
        s.joining = Some((name.to_string(), cmd));
        s.watch.enter(Phase::Joining, now);
        Ok(())
    }

    /// New matches with `name` within the per-opponent window.
    pub(super) fn recent_matches(&self, name: &str, now: Instant) -> u32 {
        let window = Duration::from_secs(self.config.invitations.per_opponent_window_h * 3600);
        self.memory
            .recent
            .get(&name.to_ascii_lowercase())
            .map_or(0, |q| {
                q.iter()
                    .filter(|&&t| now.saturating_duration_since(t) < window)
                    .count() as u32
            })
    }

    pub(super) async fn decline(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        from: &str,
        kind: InviteKind,
        reason: DeclineReason,
        why: String,
    ) -> Result<(), FibsError> {
        self.stats.invitations_declined += 1;
        self.metrics.refused(reason);
        tracing::info!(
            "fibs: {}: declining {from} ({kind:?}, {}): {why}",
            self.user,
            reason.label()
        );
        // One explanation per inviter per minute: repeated invitations must not make the
        // bot flood anyone.
        if s.may_tell(from, Instant::now()) {
            self.send_to(w, "tell", from, &why).await?;
        }
        Ok(())
    }

    /// Judges an invitation with what is known; asks the server what the policy needs
    /// (`asked`: what was asked already for it).
    pub(super) async fn consider(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        from: &str,
        kind: InviteKind,
        asked: Vec<Lookup>,
    ) -> Result<(), FibsError> {
        let now = Instant::now();
        if self.draining.is_some() {
            let why = "Sorry, I am about to log out; please invite me again later.".to_string();
            return self
                .decline(w, s, from, kind, DeclineReason::ShuttingDown, why)
                .await;
        }
        let busy_with = |o: &str| !o.eq_ignore_ascii_case(from);
        let busy = self.memory.opponent.as_deref().is_some_and(busy_with)
            || s.joining.as_ref().is_some_and(|(n, _)| busy_with(n));
        if self
            .memory
            .opponent
            .as_deref()
            .is_some_and(|o| o.eq_ignore_ascii_case(from))
        {
            // Already playing this opponent (a repeated invitation): nothing to do.
            return Ok(());
        }
        let key = from.to_ascii_lowercase();
        let info = s.who.get(&key);
        let who = Inviter {
            name: from.to_string(),
            rating: info.map(|i| i.rating),
            experience: info.map(|i| i.experience),
            saved_count: s.saved_counts.get(&key).copied(),
            recent_matches: self.recent_matches(from, now),
        };
        // The policy speaks first, so that an inviter it turns away hears the real reason
        // even while the bot is busy.
        match self.config.invitations.judge(&who, kind) {
            Verdict::Join if busy => {
                let why = "Sorry, I am in a match right now; please invite me again later.".into();
                self.decline(w, s, from, kind, DeclineReason::Busy, why)
                    .await
            }
            Verdict::Join => {
                self.stats.invitations_joined += 1;
                self.metrics.joined();
                tracing::info!("fibs: {}: accepting {from} ({kind:?})", self.user);
                // A saved match is resumed by inviting, never by joining: the bot's own
                // invitation names the match the server will load.
                let cmd = if kind == InviteKind::Resume {
                    format!("invite {from}")
                } else {
                    format!("join {from}")
                };
                self.invite(w, s, from, cmd, now).await
            }
            Verdict::Decline(reason, why) => self.decline(w, s, from, kind, reason, why).await,
            Verdict::Ask(lookup) if asked.contains(&lookup) => {
                let why = "Sorry, I could not look you up; please invite me again.".into();
                self.decline(w, s, from, kind, DeclineReason::Unknown, why)
                    .await
            }
            Verdict::Ask(lookup) => {
                let cmd = match lookup {
                    Lookup::Who => "rawwho",
                    Lookup::SavedCount => "show savedcount",
                };
                s.pending.retain(|p| !p.from.eq_ignore_ascii_case(from));
                let mut asked = asked;
                asked.push(lookup);
                s.pending.push(Pending {
                    from: from.to_string(),
                    kind,
                    since: now,
                    asked,
                });
                self.send_to(w, cmd, from, "").await?;
                Ok(())
            }
        }
    }

    /// Judges again the invitations that waited for news of `name`.
    pub(super) async fn retry_pending(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        name: &str,
    ) -> Result<(), FibsError> {
        let (mine, rest): (Vec<Pending>, Vec<Pending>) = std::mem::take(&mut s.pending)
            .into_iter()
            .partition(|p| p.from.eq_ignore_ascii_case(name));
        s.pending = rest;
        for p in mine {
            self.consider(w, s, &p.from, p.kind, p.asked).await?;
        }
        Ok(())
    }

    /// A `show saved` table has been read: it is the list of saved matches now.
    pub(super) async fn apply_saved_rows(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
    ) -> Result<(), FibsError> {
        let Some(rows) = s.saved_rows.take() else {
            return Ok(());
        };
        self.replace_saved(rows);
        if s.watch.phase() == Phase::Idle {
            self.idle_chores(w, s, Instant::now()).await?;
        }
        Ok(())
    }

    /// The server's list of saved matches replaces the bot's: matches it no longer lists
    /// were finished elsewhere or expired.
    pub(super) fn replace_saved(&mut self, rows: Vec<Saved>) {
        let listed: HashSet<String> = rows.iter().map(|r| r.name.to_ascii_lowercase()).collect();
        for gone in self
            .memory
            .saved
            .values()
            .filter(|m| !listed.contains(&m.name.to_ascii_lowercase()))
        {
            tracing::info!(
                "fibs: {}: the match with {} is no longer saved (finished or expired)",
                self.user,
                gone.name
            );
        }
        self.memory.saved.clear();
        for r in rows {
            if !self.config.invitations.listed_ok(&r.name) {
                tracing::info!(
                    "fibs: {}: not resuming the saved match with {} (the allow and deny lists)",
                    self.user,
                    r.name
                );
                continue;
            }
            tracing::info!(
                "fibs: {}: saved match with {} ({}, {}-{}); the server deletes saved matches \
                 left unfinished too long",
                self.user,
                r.name,
                r.length
                    .map_or("unlimited".to_string(), |l| format!("{l} points")),
                r.score.0,
                r.score.1
            );
            self.memory.saved.insert(r.name.to_ascii_lowercase(), r);
        }
    }
}
