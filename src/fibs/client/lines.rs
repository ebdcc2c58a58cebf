//! What each server line does to the account: logins, settings, who-info, invitations,
//! match and game events, errors and the opponent's actions, and the boards it answers
//! (each distinct board once per connection); the log line of a match that ended.

use std::time::{Duration, Instant};

use super::{Client, FibsError, Flow, MatchRecord, Saved, Session, Writer};
use crate::fibs::brain::{BoardAnswer, BoardStatus};
use crate::fibs::clip::{classify, valid_name, ClipLine, Who};
use crate::fibs::config::Finish;
use crate::fibs::metrics::MatchEnd;
use crate::fibs::watchdog::Phase;

/// Whether a server error line is about an answer to a board (a move, roll, double,
/// accept or reject) rather than about invitations or other commands.
fn refuses_a_board_answer(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    !(e.contains("invite")
        || e.contains("join")
        || e.contains("unknown command")
        || e.contains("no one called")
        || e.contains("saved"))
}

/// The head of a board line: opponent, match length, our score, theirs.
fn board_head(line: &str) -> Option<(&str, u32, u32, u32)> {
    let mut f = line.split(':').skip(2);
    let opponent = f.next()?;
    let length = f.next()?.parse().ok()?;
    let ours = f.next()?.parse().ok()?;
    let theirs = f.next()?.parse().ok()?;
    Some((opponent, length, ours, theirs))
}

impl Client {
    /// The log line of a match that ended.
    pub(super) fn status_line(&self, result: &str) {
        let Some(m) = &self.memory.current else {
            return;
        };
        let (length, ours, theirs) = m.head.unwrap_or((0, 0, 0));
        let length = if length == 0 {
            "unlimited".to_string()
        } else {
            format!("{length} points")
        };
        let rating = self
            .memory
            .rating
            .map_or("not known".to_string(), |r| format!("{r:.2}"));
        tracing::info!(
            account = %self.user,
            opponent = %m.opponent,
            result,
            "fibs: {}: match with {} ({length}{}): {result}, last score {ours}-{theirs}, games {} won \
             {} lost, {:.1} min; rating {rating}",
            self.user,
            m.opponent,
            if m.resumed { ", resumed" } else { "" },
            m.games_won,
            m.games_lost,
            m.started.elapsed().as_secs_f64() / 60.0
        );
    }

    /// Warns about a board that does not fit the match in progress (it is still acted on:
    /// the board is what the server will referee by).
    pub(super) fn check_board(&mut self, board: &str) {
        let Some((opp, length, ours, theirs)) = board_head(board) else {
            return;
        };
        let mut odd = Vec::new();
        if let Some(o) = &self.memory.opponent {
            if !o.eq_ignore_ascii_case(opp) {
                odd.push(format!("opponent {opp:?}, not {o}"));
            }
        }
        if let Some(m) = &mut self.memory.current {
            if let Some((l, a, b)) = m.head {
                if l != length || ours < a || theirs < b {
                    odd.push(format!(
                        "score {ours}-{theirs} of {length} after {a}-{b} of {l}"
                    ));
                }
            }
            m.head = Some((length, ours, theirs));
        }
        if !odd.is_empty() {
            self.stats.odd_lines += 1;
            self.metrics.unreadable_line();
            tracing::warn!(
                "fibs: {}: a board that contradicts the last one ({}): {board}",
                self.user,
                odd.join("; ")
            );
        }
    }

    pub(super) async fn handle_line(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        line: &str,
    ) -> Result<Flow, FibsError> {
        if line.is_empty() {
            return Ok(Flow::Go);
        }
        tracing::trace!("fibs < {line}");
        let now = Instant::now();
        let class = classify(line);
        if s.saved_rows.is_some()
            && !matches!(class, ClipLine::SavedEntry { .. } | ClipLine::SavedHeader)
        {
            self.apply_saved_rows(w, s).await?;
        }
        match class {
            ClipLine::Welcome { user } => {
                if user.eq_ignore_ascii_case(&self.user) {
                    s.logged_in = true;
                    s.watch.enter(Phase::Idle, now);
                    self.stats.logins += 1;
                    self.metrics.login();
                    self.metrics.set_connected(true);
                    tracing::info!("fibs: logged in as {user}");
                }
            }
            ClipLine::OwnInfo(info) => {
                if !s.settings_fixed {
                    s.settings_fixed = true;
                    for cmd in info.fixes() {
                        self.send(w, &cmd, false).await?;
                    }
                    // The saved matches, to resume them; the answer replaces what the bot
                    // remembers.
                    self.send(w, "show saved", false).await?;
                }
            }
            ClipLine::LoginBlock => {}
            ClipLine::PlayerInfo(info) => {
                let key = info.name.to_ascii_lowercase();
                if info.name.eq_ignore_ascii_case(&self.user) {
                    self.memory.rating = Some(info.rating);
                    self.metrics.set_rating(info.rating);
                }
                s.online.insert(key.clone());
                let name = info.name.clone();
                s.who.insert(key, info);
                if s.pending.iter().any(|p| p.from.eq_ignore_ascii_case(&name)) {
                    self.retry_pending(w, s, &name).await?;
                }
            }
            ClipLine::SavedHeader => s.saved_rows = Some(Vec::new()),
            ClipLine::SavedEntry {
                name,
                online,
                length,
                score,
            } => {
                if online {
                    s.online.insert(name.to_ascii_lowercase());
                }
                s.saved_rows.get_or_insert_with(Vec::new).push(Saved {
                    name,
                    length,
                    score,
                });
            }
            ClipLine::NoSaved => {
                self.replace_saved(Vec::new());
            }
            ClipLine::SavedCount { name, count } => {
                s.saved_counts.insert(name.to_ascii_lowercase(), count);
                if s.pending.iter().any(|p| p.from.eq_ignore_ascii_case(&name)) {
                    self.retry_pending(w, s, &name).await?;
                }
            }
            ClipLine::Board(board) => return self.on_board(w, s, board, now).await,
            ClipLine::Invitation { from, kind } => {
                if !valid_name(&from) {
                    self.odd(&format!("an invitation from an odd name: {line:?}"));
                    return Ok(Flow::Go);
                }
                s.online.insert(from.to_ascii_lowercase());
                self.consider(w, s, &from, kind, Vec::new()).await?;
            }
            ClipLine::MatchStarted { opponent } => {
                if !valid_name(&opponent) {
                    self.odd(&format!("a match with an odd name: {line:?}"));
                }
                s.forget_answers();
                s.joining = None;
                let key = opponent.to_ascii_lowercase();
                let resumed = self.memory.saved.remove(&key).is_some();
                if !resumed {
                    let window =
                        Duration::from_secs(self.config.invitations.per_opponent_window_h * 3600);
                    let q = self.memory.recent.entry(key).or_default();
                    while q
                        .front()
                        .is_some_and(|&t| now.saturating_duration_since(t) >= window)
                    {
                        q.pop_front();
                    }
                    q.push_back(now);
                }
                self.metrics.match_started(resumed);
                self.metrics.set_in_match(true);
                tracing::info!(
                    "fibs: {}: {} a match with {opponent}",
                    self.user,
                    if resumed { "resuming" } else { "starting" }
                );
                self.memory.current = Some(MatchRecord {
                    opponent: opponent.clone(),
                    resumed,
                    started: Instant::now(),
                    games_won: 0,
                    games_lost: 0,
                    head: None,
                });
                self.memory.opponent = Some(opponent);
                self.send(w, "board", false).await?;
                s.watch.enter(Phase::OwnBoard, now);
            }
            ClipLine::NewGame => {
                self.brain.new_game();
                s.forget_answers();
                self.send(w, "board", false).await?;
                s.watch.enter(Phase::OwnBoard, now);
            }
            ClipLine::MatchLoaded | ClipLine::YourTurn | ClipLine::Doubled { .. } => {
                self.send(w, "board", false).await?;
                s.watch.enter(Phase::OwnBoard, now);
            }
            ClipLine::ResignOffer { by, points } => {
                let accept = match &s.last_board {
                    Some(b) => self.brain.accept_resignation(b, points).await,
                    None => false,
                };
                if accept {
                    self.stats.resignations_accepted += 1;
                } else {
                    self.stats.resignations_rejected += 1;
                }
                tracing::info!(
                    "fibs: {by} offers to resign for {points}: {}",
                    if accept { "accept" } else { "reject" }
                );
                self.send(w, if accept { "accept" } else { "reject" }, false)
                    .await?;
                s.watch.enter(Phase::Opponent, now);
            }
            ClipLine::GameOver { winner, points } => {
                let won = winner == Who::Me;
                if won {
                    self.stats.games_won += 1;
                } else {
                    self.stats.games_lost += 1;
                }
                self.metrics.game_ended(won);
                if let Some(m) = &mut self.memory.current {
                    if won {
                        m.games_won += 1;
                    } else {
                        m.games_lost += 1;
                    }
                }
                tracing::info!("fibs: {}: game over ({winner:?} +{points})", self.user);
                s.watch.enter(Phase::Opponent, now);
                if self.draining.is_some() && self.config.shutdown.finish != Finish::Match {
                    s.quit_after_game = true;
                }
            }
            ClipLine::JoinNextGame => {
                if s.quit_after_game {
                    return self
                        .bye(w, "the game is over and the bot is stopping")
                        .await;
                }
                self.send(w, "join", false).await?;
                s.watch.enter(Phase::NextGame, now);
            }
            ClipLine::MatchOver { winner } => {
                let won = winner == Who::Me;
                if won {
                    self.stats.matches_won += 1;
                } else {
                    self.stats.matches_lost += 1;
                }
                self.metrics
                    .match_ended(if won { MatchEnd::Won } else { MatchEnd::Lost });
                self.metrics.set_in_match(false);
                if let Some(m) = &mut self.memory.current {
                    // The last board shows the score before the final game.
                    if let Some((l, a, b)) = m.head {
                        m.head = Some(if won {
                            (l, a.max(l), b)
                        } else {
                            (l, a, b.max(l))
                        });
                    }
                }
                self.status_line(if won { "won" } else { "lost" });
                self.memory.current = None;
                if let Some(o) = self.memory.opponent.take() {
                    self.memory.saved.remove(&o.to_ascii_lowercase());
                }
                s.forget_answers();
                s.watch.enter(Phase::Idle, now);
                if self.draining.is_some() {
                    return self
                        .bye(w, "the match is over and the bot is stopping")
                        .await;
                }
            }
            ClipLine::OpponentGone { name } => {
                s.online.remove(&name.to_ascii_lowercase());
                // Only our opponent's departure saves a match of ours; anyone else's
                // logout is none of the bot's business.
                let ours = self
                    .memory
                    .opponent
                    .as_deref()
                    .is_some_and(|o| o.eq_ignore_ascii_case(&name));
                if ours {
                    self.memory.opponent = None;
                    self.metrics.set_in_match(false);
                    tracing::info!("fibs: {}: {name} left; the match is saved", self.user);
                    self.remember_saved(&name);
                    s.forget_answers();
                    s.watch.enter(Phase::Idle, now);
                    if self.draining.is_some() {
                        return self
                            .bye(w, "the opponent left and the bot is stopping")
                            .await;
                    }
                }
            }
            ClipLine::CommandError(e) => {
                tracing::warn!("fibs: {}: server refused a command: {e}", self.user);
                // Only a refused play, roll or cube answer makes the last board's answer
                // void; a refused `join` or `invite` says nothing about the board (and
                // answering the board again would play the same move twice).
                if refuses_a_board_answer(&e) {
                    if s.forget_last() {
                        self.send(w, "board", false).await?;
                        s.watch.enter(Phase::OwnBoard, now);
                    }
                } else if s.watch.phase() == Phase::Joining {
                    if let Some((name, _)) = s.joining.take() {
                        tracing::info!("fibs: {}: no match with {name}", self.user);
                    }
                    s.watch.enter(Phase::Idle, now);
                }
            }
            ClipLine::LoggedIn { name } => {
                if !valid_name(&name) {
                    self.odd(&format!("a login notice with an odd name: {line:?}"));
                    return Ok(Flow::Go);
                }
                s.online.insert(name.to_ascii_lowercase());
                // Someone logged in: resume a saved match with them.
                let saved = self.memory.saved.contains_key(&name.to_ascii_lowercase());
                if saved
                    && self.memory.opponent.is_none()
                    && s.joining.is_none()
                    && self.draining.is_none()
                    && self.config.invitations.listed_ok(&name)
                {
                    self.invite(w, s, &name, format!("invite {name}"), now)
                        .await?;
                }
            }
            ClipLine::NotPlaying => {
                // No game is on: a board request crossed the end of a game, or the match
                // ended or was saved. Waiting for a board of the bot's own would wait
                // forever; the opponent's wait (board, reminder, leaving) covers the rest.
                if s.watch.phase().bot_due() {
                    s.reanswer = false;
                    let phase = if self.memory.opponent.is_some() {
                        Phase::Opponent
                    } else {
                        Phase::Idle
                    };
                    s.watch.enter(phase, now);
                }
            }
            ClipLine::Refusing => {}
            ClipLine::Other(text) => {
                // The opponent acted (`alice rolls 4 and 4.`, `alice can't move.`, ...): a
                // board seen before may now be a new question (both sides blocked give the
                // same board twice), so the memory of answered boards starts afresh.
                let by_opponent = self.memory.opponent.as_deref().is_some_and(|o| {
                    text.strip_prefix(o)
                        .is_some_and(|rest| rest.starts_with(' '))
                });
                if by_opponent {
                    s.forget_answers();
                    s.watch.progress(now);
                    // Their play is over: the bot's turn comes, and a board with it.
                    let rest = self
                        .memory
                        .opponent
                        .as_deref()
                        .and_then(|o| text.get(o.len()..))
                        .unwrap_or("");
                    if rest.starts_with(" moves") || rest.starts_with(" can't move") {
                        s.watch.enter(Phase::OwnBoard, now);
                    } else if !matches!(s.watch.phase(), Phase::OwnBoard | Phase::ServerRoll) {
                        s.watch.enter(Phase::Opponent, now);
                    }
                }
            }
        }
        Ok(Flow::Go)
    }

    pub(super) fn odd(&mut self, what: &str) {
        self.stats.odd_lines += 1;
        self.metrics.unreadable_line();
        tracing::warn!("fibs: {}: ignoring {what}", self.user);
    }

    pub(super) async fn on_board(
        &mut self,
        w: &mut Writer,
        s: &mut Session,
        board: String,
        now: Instant,
    ) -> Result<Flow, FibsError> {
        self.check_board(&board);
        if s.last_board.as_deref() != Some(board.as_str()) {
            s.watch.progress(now);
        }
        s.last_board = Some(board.clone());
        if s.answered.contains(&board) {
            // Asked for by the watchdog and unchanged: the answer never arrived.
            let lost =
                s.reanswer && s.last_answered.as_deref() == Some(board.as_str()) && s.forget_last();
            if !lost {
                s.reanswer = false;
                self.stats.repeated_boards += 1;
                return Ok(Flow::Go);
            }
            tracing::info!(
                "fibs: {}: the answer to this board was lost; answering again",
                self.user
            );
        }
        s.reanswer = false;
        match self.brain.answer(&board).await {
            Ok(BoardAnswer {
                command: Some(cmd), ..
            }) => {
                s.remember(&board);
                self.stats.boards_answered += 1;
                self.metrics.board_answered();
                self.send(w, &cmd, false).await?;
                // After a double or a resignation the opponent answers; after a play or a
                // cube answer the board should change.
                let phase = if cmd.starts_with("double") || cmd.starts_with("resign") {
                    Phase::Opponent
                } else {
                    Phase::Answered
                };
                s.watch.enter(phase, now);
            }
            Ok(BoardAnswer {
                command: None,
                status,
            }) => match status {
                BoardStatus::ServerRolls => s.watch.enter(Phase::ServerRoll, now),
                BoardStatus::ServerMoves => s.watch.stay_or_enter(Phase::Answered, now),
                BoardStatus::Theirs | BoardStatus::Over => {
                    s.watch.stay_or_enter(Phase::Opponent, now)
                }
                BoardStatus::Ours => {}
            },
            Err(e) => {
                self.stats.brain_errors += 1;
                self.metrics.decision_error();
                tracing::warn!("fibs: {}: no decision for {board}: {e}", self.user);
            }
        }
        Ok(Flow::Go)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_errors_about_play_void_a_board_answer() {
        assert!(refuses_a_board_answer("** It's not your turn to move."));
        assert!(refuses_a_board_answer("** You must give 2 moves."));
        assert!(!refuses_a_board_answer(
            "** Error: alice didn't invite you."
        ));
        assert!(!refuses_a_board_answer("** Unknown command: 'time'"));
    }
}
