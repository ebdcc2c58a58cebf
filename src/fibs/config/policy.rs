//! The invitation policy of the FIBS bot (`[invitations]` of `config/fibs.toml`): which
//! invitations the account accepts, what it must learn about an inviter first, the reason
//! it gives when it declines, and whom it invites itself.

use serde::Deserialize;

use super::FibsConfigError;
use crate::fibs::clip::InviteKind;

/// Why an invitation was declined: the `reason` label of the refused-invitations metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeclineReason {
    /// The deny list, or an allow list without the inviter.
    Listed,
    /// A match length outside the accepted range.
    Length,
    /// Unlimited matches are not played.
    Unlimited,
    /// Saved matches are not resumed.
    Resume,
    /// The bot is in another match.
    Busy,
    /// The inviter has too many saved matches.
    SavedMatches,
    /// The inviter's rating is out of bounds.
    Rating,
    /// The inviter has too little experience.
    Experience,
    /// The inviter has had enough matches with the bot lately.
    PerOpponent,
    /// The bot is finishing its last game before it logs out.
    ShuttingDown,
    /// What the policy needs to know about the inviter could not be learnt in time.
    Unknown,
}

impl DeclineReason {
    pub const ALL: [DeclineReason; 11] = [
        DeclineReason::Listed,
        DeclineReason::Length,
        DeclineReason::Unlimited,
        DeclineReason::Resume,
        DeclineReason::Busy,
        DeclineReason::SavedMatches,
        DeclineReason::Rating,
        DeclineReason::Experience,
        DeclineReason::PerOpponent,
        DeclineReason::ShuttingDown,
        DeclineReason::Unknown,
    ];

    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            DeclineReason::Listed => "listed",
            DeclineReason::Length => "length",
            DeclineReason::Unlimited => "unlimited",
            DeclineReason::Resume => "resume",
            DeclineReason::Busy => "busy",
            DeclineReason::SavedMatches => "saved_matches",
            DeclineReason::Rating => "rating",
            DeclineReason::Experience => "experience",
            DeclineReason::PerOpponent => "per_opponent",
            DeclineReason::ShuttingDown => "shutting_down",
            DeclineReason::Unknown => "unknown",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// What the bot knows about an inviter when it judges an invitation; `None` where it has
/// not learnt it (yet).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inviter {
    pub name: String,
    /// From the server's who-info line.
    pub rating: Option<f64>,
    pub experience: Option<u32>,
    /// From `show savedcount NAME`.
    pub saved_count: Option<u32>,
    /// New matches with the bot within `per_opponent_window_h`.
    pub recent_matches: u32,
}

/// What to find out before an invitation can be judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The inviter's who-info line (rating, experience): `rawwho NAME`.
    Who,
    /// How many saved matches the inviter has: `show savedcount NAME`.
    SavedCount,
}

/// The policy's answer to an invitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Join,
    Decline(DeclineReason, String),
    /// Ask the server first, then judge again.
    Ask(Lookup),
}

/// Which invitations to accept, and whom to invite.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InvitePolicy {
    /// Shortest match accepted, in points.
    pub min_length: u32,
    /// Longest match accepted, in points.
    pub max_length: u32,
    /// Accept unlimited (money) matches.
    pub allow_unlimited: bool,
    /// When not empty, only these players may invite the bot.
    pub allow: Vec<String>,
    /// Players whose invitations are always declined.
    pub deny: Vec<String>,
    /// Accept invitations to resume a saved match (answered with `invite NAME`).
    pub resume_saved: bool,
    /// Decline inviters with more saved matches than this (0 = do not ask).
    pub max_inviter_saved: u32,
    /// Decline inviters rated below this (0 = no bound).
    pub min_rating: f64,
    /// Decline inviters rated above this (0 = no bound).
    pub max_rating: f64,
    /// Decline inviters with fewer experience points than this (0 = no bound).
    pub min_experience: u32,
    /// At most this many new matches with one opponent within `per_opponent_window_h`
    /// (0 = no limit); resuming a saved match does not count.
    pub max_matches_per_opponent: u32,
    pub per_opponent_window_h: u64,
    /// Invite idle players who are `ready` (and whom the policy would accept) while the bot
    /// has no match, each at most once an hour.
    pub autoinvite: bool,
    /// The length of those invitations.
    pub autoinvite_length: u32,
    /// At most one such invitation this often, in seconds.
    pub autoinvite_every_s: u64,
}

impl Default for InvitePolicy {
    fn default() -> InvitePolicy {
        InvitePolicy {
            min_length: 1,
            max_length: 11,
            allow_unlimited: false,
            allow: Vec::new(),
            deny: Vec::new(),
            resume_saved: true,
            max_inviter_saved: 0,
            min_rating: 0.0,
            max_rating: 0.0,
            min_experience: 0,
            max_matches_per_opponent: 0,
            per_opponent_window_h: 24,
            autoinvite: false,
            autoinvite_length: 5,
            autoinvite_every_s: 600,
        }
    }
}

impl InvitePolicy {
    /// True when an invitation from `from` of this kind passes the lists and lengths.
    pub fn accepts(&self, from: &str, kind: InviteKind) -> bool {
        self.decline_reason(from, kind).is_none()
    }

    /// Why an invitation is declined by the lists and lengths alone, in words fit to
    /// tell the inviter; None when those let it through.
    pub fn decline_reason(&self, from: &str, kind: InviteKind) -> Option<String> {
        self.static_check(from, kind).map(|(_, text)| text)
    }

    /// Whether the allow and deny lists let `name` play the bot.
    pub fn listed_ok(&self, name: &str) -> bool {
        let same = |n: &String| n.eq_ignore_ascii_case(name);
        !(self.deny.iter().any(same) || (!self.allow.is_empty() && !self.allow.iter().any(same)))
    }

    fn static_check(&self, from: &str, kind: InviteKind) -> Option<(DeclineReason, String)> {
        if !self.listed_ok(from) {
            return Some((
                DeclineReason::Listed,
                "Sorry, I am not taking invitations from you.".into(),
            ));
        }
        match kind {
            InviteKind::Points(n) if n >= self.min_length && n <= self.max_length => None,
            InviteKind::Points(_) => Some((
                DeclineReason::Length,
                format!(
                    "Sorry, I play matches of {} to {} points. Please invite me to one of those.",
                    self.min_length, self.max_length
                ),
            )),
            InviteKind::Unlimited if self.allow_unlimited => None,
            InviteKind::Unlimited => Some((
                DeclineReason::Unlimited,
                format!(
                    "Sorry, I do not play unlimited matches; invite me to {} to {} points.",
                    self.min_length, self.max_length
                ),
            )),
            InviteKind::Resume if self.resume_saved => None,
            InviteKind::Resume => Some((
                DeclineReason::Resume,
                "Sorry, I do not resume saved matches; invite me to a new one.".into(),
            )),
        }
    }

    /// Judges an invitation with what is known of the inviter. Resuming a saved match
    /// passes every bound but the lists: it finishes what was started.
    pub fn judge(&self, who: &Inviter, kind: InviteKind) -> Verdict {
        if let Some((reason, text)) = self.static_check(&who.name, kind) {
            return Verdict::Decline(reason, text);
        }
        if kind == InviteKind::Resume {
            return Verdict::Join;
        }
        if self.max_matches_per_opponent > 0 && who.recent_matches >= self.max_matches_per_opponent
        {
            return Verdict::Decline(
                DeclineReason::PerOpponent,
                format!(
                    "Sorry, I play at most {} matches with one player in {} hours; please come back later.",
                    self.max_matches_per_opponent, self.per_opponent_window_h
                ),
            );
        }
        let rated = self.min_rating > 0.0 || self.max_rating > 0.0 || self.min_experience > 0;
        if rated {
            let (Some(rating), Some(experience)) = (who.rating, who.experience) else {
                return Verdict::Ask(Lookup::Who);
            };
            if (self.min_rating > 0.0 && rating < self.min_rating)
                || (self.max_rating > 0.0 && rating > self.max_rating)
            {
                let lo = if self.min_rating > 0.0 {
                    self.min_rating
                } else {
                    0.0
                };
                let bounds = if self.max_rating > 0.0 {
                    format!("{lo:.0} to {:.0}", self.max_rating)
                } else {
                    format!("at least {lo:.0}")
                };
                return Verdict::Decline(
                    DeclineReason::Rating,
                    format!("Sorry, I play opponents rated {bounds}."),
                );
            }
            if experience < self.min_experience {
                return Verdict::Decline(
                    DeclineReason::Experience,
                    format!(
                        "Sorry, I play opponents with an experience of {} or more.",
                        self.min_experience
                    ),
                );
            }
        }
        if self.max_inviter_saved > 0 {
            let Some(saved) = who.saved_count else {
                return Verdict::Ask(Lookup::SavedCount);
            };
            if saved > self.max_inviter_saved {
                return Verdict::Decline(
                    DeclineReason::SavedMatches,
                    format!(
                        "Sorry, you have {saved} saved matches; please finish some first (I accept up to {}).",
                        self.max_inviter_saved
                    ),
                );
            }
        }
        Verdict::Join
    }

    pub(super) fn validate(&self) -> Result<(), FibsConfigError> {
        if self.min_length == 0 || self.max_length < self.min_length {
            return Err(FibsConfigError::Invalid(
                "invitations.min_length must be at least 1 and at most max_length".into(),
            ));
        }
        if self.min_rating < 0.0 || self.max_rating < 0.0 {
            return Err(FibsConfigError::Invalid(
                "invitations.min_rating and max_rating must not be negative".into(),
            ));
        }
        if self.max_rating > 0.0 && self.max_rating < self.min_rating {
            return Err(FibsConfigError::Invalid(
                "invitations.max_rating must be at least min_rating (or 0 for no bound)".into(),
            ));
        }
        if self.max_matches_per_opponent > 0 && self.per_opponent_window_h == 0 {
            return Err(FibsConfigError::Invalid(
                "invitations.per_opponent_window_h must be positive".into(),
            ));
        }
        if self.autoinvite && (self.autoinvite_length == 0 || self.autoinvite_every_s == 0) {
            return Err(FibsConfigError::Invalid(
                "invitations.autoinvite_length and autoinvite_every_s must be positive".into(),
            ));
        }
        for name in self.allow.iter().chain(&self.deny) {
            if !crate::fibs::clip::valid_name(name) {
                return Err(FibsConfigError::Invalid(format!(
                    "invitations: {name:?} is not a player name (letters, digits and _)"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn who(
        name: &str,
        rating: Option<f64>,
        experience: Option<u32>,
        saved: Option<u32>,
    ) -> Inviter {
        Inviter {
            name: name.into(),
            rating,
            experience,
            saved_count: saved,
            recent_matches: 0,
        }
    }

    #[test]
    fn the_policy_asks_what_it_needs_and_judges_by_it() {
        let p = InvitePolicy {
            min_rating: 1400.0,
            max_rating: 1900.0,
            min_experience: 100,
            max_inviter_saved: 5,
            max_matches_per_opponent: 2,
            ..InvitePolicy::default()
        };
        let five = InviteKind::Points(5);
        assert_eq!(
            p.judge(&who("a", None, None, None), five),
            Verdict::Ask(Lookup::Who)
        );
        assert_eq!(
            p.judge(&who("a", Some(1500.0), Some(200), None), five),
            Verdict::Ask(Lookup::SavedCount)
        );
        assert_eq!(
            p.judge(&who("a", Some(1500.0), Some(200), Some(5)), five),
            Verdict::Join
        );
        let reason = |w: Inviter| match p.judge(&w, five) {
            Verdict::Decline(r, text) => {
                assert!(!text.contains('\n') && !text.is_empty());
                Some(r)
            }
            _ => None,
        };
        assert_eq!(
            reason(who("a", Some(1399.0), Some(200), Some(0))),
            Some(DeclineReason::Rating)
        );
        assert_eq!(
            reason(who("a", Some(1901.0), Some(200), Some(0))),
            Some(DeclineReason::Rating)
        );
        assert_eq!(
            reason(who("a", Some(1500.0), Some(99), Some(0))),
            Some(DeclineReason::Experience)
        );
        assert_eq!(
            reason(who("a", Some(1500.0), Some(200), Some(6))),
            Some(DeclineReason::SavedMatches)
        );
        let mut busy = who("a", Some(1500.0), Some(200), Some(0));
        busy.recent_matches = 2;
        assert_eq!(reason(busy.clone()), Some(DeclineReason::PerOpponent));
        // Resuming finishes what was begun: only the lists apply.
        assert_eq!(p.judge(&busy, InviteKind::Resume), Verdict::Join);
        assert_eq!(
            p.judge(&who("a", None, None, None), InviteKind::Resume),
            Verdict::Join
        );
        let short = InvitePolicy {
            min_length: 3,
            ..InvitePolicy::default()
        };
        assert_eq!(
            short.static_check("a", InviteKind::Points(1)).map(|r| r.0),
            Some(DeclineReason::Length)
        );
        // With no bounds nothing is asked.
        assert_eq!(
            InvitePolicy::default().judge(&who("a", None, None, None), five),
            Verdict::Join
        );
    }

    #[test]
    fn declines_come_with_a_reason_in_one_line() {
        let p = InvitePolicy {
            deny: vec!["spammer".into()],
            ..InvitePolicy::default()
        };
        assert_eq!(p.decline_reason("alice", InviteKind::Points(5)), None);
        for (from, kind, needle) in [
            ("alice", InviteKind::Points(25), "1 to 11 points"),
            ("alice", InviteKind::Unlimited, "unlimited"),
            ("Spammer", InviteKind::Points(1), "not taking invitations"),
        ] {
            let r = p.decline_reason(from, kind).unwrap();
            assert!(r.contains(needle) && !r.contains('\n'), "{r}");
        }
    }

    #[test]
    fn policy_follows_lists_and_limits() {
        let p = InvitePolicy {
            max_length: 7,
            allow_unlimited: false,
            allow: vec![],
            deny: vec!["Spammer".into()],
            ..InvitePolicy::default()
        };
        assert!(p.accepts("alice", InviteKind::Points(7)));
        assert!(!p.accepts("alice", InviteKind::Points(9)));
        assert!(!p.accepts("alice", InviteKind::Unlimited));
        assert!(p.accepts("alice", InviteKind::Resume));
        assert!(!p.accepts("spammer", InviteKind::Points(1)));
        let only = InvitePolicy {
            allow: vec!["bob".into()],
            ..p
        };
        assert!(!only.accepts("alice", InviteKind::Points(3)));
        assert!(only.accepts("bob", InviteKind::Points(3)));
    }
}
