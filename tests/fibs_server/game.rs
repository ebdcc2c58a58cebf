//! The test server's games: joining and inviting, the bot's and alice's turns, the cube,
//! resignations, game and match ends, and the board line from the bot's view.

use super::*;

impl World {
    pub(super) fn game(&self) -> Option<&Game> {
        self.the_match.as_ref().and_then(|m| m.game.as_ref())
    }

    pub(super) fn game_mut(&mut self) -> Option<&mut Game> {
        self.the_match.as_mut().and_then(|m| m.game.as_mut())
    }

    pub(super) fn cmd_join(&mut self, words: &[&str], out: &mut Vec<String>) {
        if words.len() == 1 {
            let between = self.the_match.as_ref().is_some_and(|m| m.between_games);
            if between && !self.saved {
                self.the_match.as_mut().unwrap().between_games = false;
                self.start_game(out);
            } else {
                self.error(out, "Error: nobody invited you.", "join");
            }
            return;
        }
        let name = words[1];
        if !self.invited.iter().any(|n| n == name) {
            // Harmless (e.g. the invitation was already used by an `invite`): not counted.
            out.push(format!("** Error: {name} didn't invite you."));
            return;
        }
        self.invited.clear();
        if name != OPPONENT {
            self.log.joined_forbidden.push(name.to_string());
            self.log.joined_spammer |= name == SPAMMER;
            out.push(format!(
                "** You are now playing a 99 point match with {SPAMMER}"
            ));
            return;
        }
        self.begin_with_alice(out);
    }

    pub(super) fn cmd_invite(&mut self, words: &[&str], out: &mut Vec<String>) {
        if words.len() < 2 {
            out.push(line("** invite who?"));
            return;
        }
        if words[1] != OPPONENT || !self.alice_online {
            out.push(format!("** There is no one called {}.", words[1]));
            return;
        }
        if self.the_match.is_some() && !self.saved {
            out.push(line("** You are already playing."));
            return;
        }
        // Alice accepts at once.
        self.invited.clear();
        self.begin_with_alice(out);
    }

    pub(super) fn begin_with_alice(&mut self, out: &mut Vec<String>) {
        let len = self.script.match_length;
        if self.the_match.is_some() && self.saved {
            self.saved = false;
            self.log.resumes += 1;
            if self.script.independent_lines {
                out.push(format!(
                    "You are now playing with {OPPONENT}. Your running match was loaded."
                ));
            } else {
                out.push(format!(
                    "** Player {OPPONENT} has joined you for a {len} point match."
                ));
                out.push(line("Your running match was loaded."));
            }
            // If alice is to act, she carries on now.
            let alice_to_act = self.game().is_some_and(|g| {
                g.turn == Side::Alice && g.pending_double.is_none() && g.pending_resign.is_none()
            });
            let bot_rolls_now = self.game().is_some_and(|g| {
                g.turn == Side::Bot
                    && g.dice.is_none()
                    && g.pending_double.is_none()
                    && g.pending_resign.is_none()
            }) && !self.may_double(Side::Bot);
            if alice_to_act {
                self.alice_turn(out);
            } else if bot_rolls_now && self.rolls_for_bot() {
                self.auto_roll(out);
            } else if bot_rolls_now {
                out.push(self.board_line());
            } else if self.the_match.as_ref().is_some_and(|m| m.between_games) {
                out.push(line(
                    "Type 'join' if you want to play the next game, type 'leave' if you don't.",
                ));
            }
            return;
        }
        self.matches_started += 1;
        self.the_match = Some(MatchState {
            score: [0, 0],
            crawford_done: false,
            game: None,
            between_games: false,
        });
        out.push(format!(
            "** Player {OPPONENT} has joined you for a {len} point match."
        ));
        self.start_game(out);
    }

    pub(super) fn may_double(&self, side: Side) -> bool {
        let Some(m) = self.the_match.as_ref() else {
            return false;
        };
        let Some(g) = m.game.as_ref() else {
            return false;
        };
        if g.crawford || g.owner == Some(side.other()) || g.pending_double.is_some() {
            return false;
        }
        let away = self.script.match_length - m.score[side.idx()];
        g.cube < away
    }

    pub(super) fn start_game(&mut self, out: &mut Vec<String>) {
        self.games_started += 1;
        let len = self.script.match_length;
        let m = self.the_match.as_mut().unwrap();
        let crawford = !m.crawford_done && m.score.iter().any(|&s| s + 1 == len);
        if crawford {
            m.crawford_done = true;
            self.log.crawford_games += 1;
        }
        let bot_colour = if self.rng.chance(0.5) { 1 } else { -1 };
        self.log.colours.push(bot_colour);
        let (a, b) = loop {
            let a = self.rng_die();
            let b = self.rng_die();
            if a != b {
                break (a, b);
            }
        };
        let starter = if a > b { Side::Bot } else { Side::Alice };
        let number = self.games_started;
        self.the_match.as_mut().unwrap().game = Some(Game {
            bot_view: Position::OPENING,
            bot_colour,
            turn: starter,
            dice: Some(Dice::new(a, b).unwrap()),
            cube: 1,
            owner: None,
            pending_double: None,
            pending_resign: None,
            crawford,
            alice_turns: 0,
            alice_doubled: false,
            number,
        });
        out.push(format!("Starting a new game with {OPPONENT}."));
        out.push(format!("You rolled {a}, {OPPONENT} rolled {b}."));
        if starter == Side::Bot {
            out.push(line("It's your turn to move."));
            self.after_bot_roll(out);
        } else {
            out.push(format!("{OPPONENT} makes the first move."));
            self.alice_play(out);
        }
    }

    /// The bot's turn starts: roll-or-double question, or an automatic roll.
    pub(super) fn bot_turn_begin(&mut self, out: &mut Vec<String>) {
        let may = self.may_double(Side::Bot);
        {
            let g = self.game_mut().unwrap();
            g.turn = Side::Bot;
            g.dice = None;
        }
        if may {
            out.push(self.board_line());
            out.push(line("It's your turn. Please roll or double."));
        } else if self.rolls_for_bot() {
            self.auto_roll(out);
        } else {
            // Only the board says it is the bot's turn: it must roll by itself.
            out.push(self.board_line());
        }
    }

    /// Whether the server rolls for the bot when it has no cube decision.
    pub(super) fn rolls_for_bot(&self) -> bool {
        self.script.roll_in_crawford || !self.game().is_some_and(|g| g.crawford)
    }

    /// Rolls for the bot, which has no cube decision to make.
    pub(super) fn auto_roll(&mut self, out: &mut Vec<String>) {
        let d = self.roll();
        self.game_mut().unwrap().dice = Some(d);
        out.push(format!("You roll {} and {}.", d.high(), d.low()));
        self.after_bot_roll(out);
    }

    pub(super) fn after_bot_roll(&mut self, out: &mut Vec<String>) {
        let g = self.game().unwrap();
        let dice = g.dice.unwrap();
        let plays = legal_plays(&g.bot_view, dice);
        let n = plays.iter().map(|p| p.steps().len()).max().unwrap_or(0);
        if n == 0 {
            out.push(line("You can't move."));
            self.alice_turn(out);
        } else {
            out.push(self.board_line());
            out.push(format!("Please move {n} pieces."));
        }
    }

    pub(super) fn cmd_roll(&mut self, out: &mut Vec<String>) {
        let ok = self
            .game()
            .is_some_and(|g| g.turn == Side::Bot && g.dice.is_none() && g.pending_double.is_none())
            && !self.saved;
        if !ok {
            self.error(out, "It's not your turn to roll.", "roll");
            return;
        }
        if self.game().is_some_and(|g| g.crawford) && !self.script.roll_in_crawford {
            self.log.crawford_rolls += 1;
        }
        let d = self.roll();
        self.game_mut().unwrap().dice = Some(d);
        out.push(format!("You roll {} and {}.", d.high(), d.low()));
        self.after_bot_roll(out);
    }

    pub(super) fn cmd_double(&mut self, out: &mut Vec<String>) {
        let ok = self
            .game()
            .is_some_and(|g| g.turn == Side::Bot && g.dice.is_none())
            && self.may_double(Side::Bot)
            && !self.saved;
        if !ok {
            self.error(out, "You can't double.", "double");
            return;
        }
        self.log.bot_doubles += 1;
        out.push(format!(
            "You double. Please wait for {OPPONENT} to accept or reject."
        ));
        // Alice takes unless she is far behind in the race.
        let g = self.game().unwrap();
        let alice_pips = g.bot_view.opp_pips() as i64;
        let bot_pips = g.bot_view.pips() as i64;
        let take = alice_pips - bot_pips < 40
            && !(self.script.alice_pass_prob > 0.0 && self.rng.chance(self.script.alice_pass_prob));
        if take {
            let g = self.game_mut().unwrap();
            g.cube *= 2;
            g.owner = Some(Side::Alice);
            let c = g.cube;
            out.push(format!(
                "{OPPONENT} accepts the double. The cube shows {c}."
            ));
            // The doubler cannot double again: the server rolls for it at once, after a
            // board from before the roll (a bot must not answer that one with `roll`).
            out.push(self.board_line());
            self.auto_roll(out);
        } else {
            let c = self.game().unwrap().cube;
            self.game_over(Side::Bot, c, Ending::Dropped, out);
        }
    }

    pub(super) fn cmd_accept(&mut self, out: &mut Vec<String>) {
        if self.saved {
            self.error(out, "You're not playing.", "accept");
            return;
        }
        let Some(g) = self.game() else {
            self.error(out, "You're not playing.", "accept");
            return;
        };
        if let Some(points) = g.pending_resign {
            self.log.resign_accepted += 1;
            self.game_mut().unwrap().pending_resign = None;
            self.game_over(Side::Bot, points, Ending::Resigned, out);
            return;
        }
        if g.pending_double == Some(Side::Alice) {
            self.log.bot_takes += 1;
            let g = self.game_mut().unwrap();
            g.pending_double = None;
            g.cube *= 2;
            g.owner = Some(Side::Bot);
            let c = g.cube;
            out.push(format!("You accept the double. The cube shows {c}."));
            self.alice_play(out);
            return;
        }
        self.error(out, "There's nothing to accept.", "accept");
    }

    /// The bot resigns: alice always accepts.
    pub(super) fn cmd_resign(&mut self, words: &[&str], out: &mut Vec<String>) {
        let level = match words.get(1).copied() {
            Some("n" | "normal") => 1,
            Some("g" | "gammon") => 2,
            Some("b" | "backgammon") => 3,
            _ => {
                self.error(out, "Type 'resign n', 'resign g' or 'resign b'.", "resign");
                return;
            }
        };
        let Some(g) = self.game() else {
            self.error(out, "You're not playing.", "resign");
            return;
        };
        if self.saved || g.pending_double.is_some() || g.pending_resign.is_some() {
            self.error(out, "You can't resign now.", "resign");
            return;
        }
        let points = g.cube * level;
        self.log.bot_resigns.push(level);
        let s = if points == 1 { "" } else { "s" };
        out.push(format!(
            "You want to resign. {OPPONENT} will win {points} point{s}."
        ));
        self.game_over(Side::Alice, points, Ending::Resigned, out);
    }

    pub(super) fn cmd_reject(&mut self, out: &mut Vec<String>) {
        if self.saved {
            self.error(out, "You're not playing.", "reject");
            return;
        }
        let Some(g) = self.game().cloned() else {
            self.error(out, "You're not playing.", "reject");
            return;
        };
        if g.pending_resign.is_some() {
            self.game_mut().unwrap().pending_resign = None;
            out.push(line("You reject. The game continues."));
            self.alice_play(out);
            return;
        }
        if g.pending_double == Some(Side::Alice) {
            self.log.bot_drops += 1;
            let c = g.cube;
            self.game_mut().unwrap().pending_double = None;
            self.game_over(Side::Alice, c, Ending::Dropped, out);
            return;
        }
        self.error(out, "There's nothing to reject.", "reject");
    }

    /// Turns the bot's absolute FIBS move into a position and checks it is a legal play.
    pub(super) fn cmd_move(&mut self, parts: &[&str], raw: &str, out: &mut Vec<String>) {
        let ok = !self.saved
            && self
                .game()
                .is_some_and(|g| g.turn == Side::Bot && g.dice.is_some());
        if !ok {
            self.error(out, "It's not your turn to move.", raw);
            return;
        }
        let g = self.game().unwrap().clone();
        let dice = g.dice.unwrap();
        let plays = legal_plays(&g.bot_view, dice);
        // The bot moves 24 -> 1 on the board array when it is O (direction -1).
        let orientation = FibsOrientation::from_direction(-(g.bot_colour as i32));
        let parsed = parse_move(
            &parts.join(" "),
            &g.bot_view,
            dice,
            MoveStyle::Fibs(orientation),
        )
        .ok()
        .map(|p| p.position);
        match parsed {
            Some(after) if plays.iter().any(|p| p.position == after) => {
                self.log.legal_moves += 1;
                if let Some(limit) = self.script.restart_after_bot_moves {
                    if self.log.legal_moves >= limit && !self.restart_done {
                        self.restart_done = true;
                        self.restart_requested = true;
                    }
                }
                let gm = self.game_mut().unwrap();
                gm.bot_view = after;
                gm.dice = None;
                if let Some(result) = after.mover_result() {
                    let c = gm.cube;
                    self.game_over(Side::Bot, c * result.points() as u32, Ending::Played, out);
                } else {
                    self.alice_turn(out);
                }
                // Chaos only where no game ended: a game-over line lost to a restart would
                // leave nothing for the bot to count.
                if !self.game_ended_now && !self.saved {
                    if self.script.kick_prob > 0.0 && self.rng.chance(self.script.kick_prob) {
                        self.kick_requested = true;
                    } else if self.script.restart_prob > 0.0
                        && self.rng.chance(self.script.restart_prob)
                    {
                        self.restart_requested = true;
                    }
                }
            }
            _ => {
                let recent: Vec<&String> = self.log.sent_tail.iter().rev().take(12).rev().collect();
                let asked: Vec<&String> = self.log.received.iter().rev().take(8).rev().collect();
                self.log.illegal_moves.push(format!(
                    "{raw} on {} with {}-{} (bot colour {}); server's last lines {recent:#?}; \
                     bot's last lines {asked:?}",
                    g.bot_view.debug_string(),
                    dice.high(),
                    dice.low(),
                    g.bot_colour
                ));
                out.push(format!(
                    "** You must give {} moves.",
                    plays.iter().map(|p| p.steps().len()).max().unwrap_or(0)
                ));
            }
        }
    }

    /// Alice's turn: maybe drop, resign, double; then roll and play.
    pub(super) fn alice_turn(&mut self, out: &mut Vec<String>) {
        let (number, turns) = {
            let g = self.game_mut().unwrap();
            g.turn = Side::Alice;
            g.dice = None;
            g.alice_turns += 1;
            (g.number, g.alice_turns)
        };
        let chaos_drop = self.script.alice_drop_prob > 0.0
            && self.alice_online
            && self.rng.chance(self.script.alice_drop_prob);
        if chaos_drop || (self.script.drop_at == Some((number, turns)) && self.log.drops == 0) {
            self.log.drops += 1;
            self.saved = true;
            self.alice_online = false;
            self.game_mut().unwrap().alice_turns -= 1;
            if self.script.independent_lines {
                out.push(format!("8 {OPPONENT} {OPPONENT} drops connection."));
                out.push(format!("{OPPONENT} logs out. The game was saved."));
            } else {
                out.push(format!("{OPPONENT} drops connection. The game was saved."));
            }
            return;
        }
        let quiet = (self.script.alice_quiet_prob > 0.0
            && self.rng.chance(self.script.alice_quiet_prob))
            || (self.script.quiet_at == Some((number, turns)) && self.log.quiet_spells == 0);
        if quiet {
            self.log.quiet_spells += 1;
            self.alice_quiet = Some(Instant::now());
            return;
        }
        self.alice_act(out);
    }

    /// Alice at her turn: maybe resign or double, else roll and play.
    pub(super) fn alice_act(&mut self, out: &mut Vec<String>) {
        let (number, turns) = {
            let g = self.game().unwrap();
            (g.number, g.alice_turns)
        };
        if self.script.resign_at == Some((number, turns)) {
            let c = self.game().unwrap().cube;
            self.log.resign_offers += 1;
            self.game_mut().unwrap().pending_resign = Some(c);
            out.push(format!(
                "{OPPONENT} wants to resign. You will win {c} point{}. Type 'accept' or 'reject'.",
                if c == 1 { "" } else { "s" }
            ));
            return;
        }
        let first_chance = !self.game().unwrap().alice_doubled;
        if self.may_double(Side::Alice)
            && first_chance
            && self.rng.chance(self.script.alice_double_prob)
        {
            self.log.alice_doubles += 1;
            let g = self.game_mut().unwrap();
            g.alice_doubled = true;
            g.pending_double = Some(Side::Alice);
            out.push(format!("{OPPONENT} doubles. Type 'accept' or 'reject'."));
            return;
        }
        if self.may_double(Side::Alice) {
            self.game_mut().unwrap().alice_doubled = true;
        }
        self.alice_play(out);
    }

    /// Alice rolls (unless the opening roll is set) and plays a random legal play.
    pub(super) fn alice_play(&mut self, out: &mut Vec<String>) {
        let dice = match self.game().unwrap().dice {
            Some(d) if self.game().unwrap().alice_turns == 0 => d,
            _ => {
                let d = self.roll();
                out.push(format!("{OPPONENT} rolls {} and {}.", d.high(), d.low()));
                d
            }
        };
        let g = self.game().unwrap().clone();
        let view = g.bot_view.swap();
        let plays = legal_plays(&view, dice);
        let play: Play = *self.rng.pick(&plays).unwrap();
        let home_word = if g.number.is_multiple_of(2) {
            "off"
        } else {
            "home"
        };
        if play.steps().is_empty() {
            out.push(format!("{OPPONENT} can't move."));
        } else {
            let text: Vec<String> = play
                .steps()
                .iter()
                .map(|s| {
                    let abs = |rel: u8| -> String {
                        // Alice's point p is the bot's point 25 - p; the bot's point q is
                        // absolute q when the bot is O, 25 - q when it is X.
                        if g.bot_colour == 1 {
                            (25 - rel).to_string()
                        } else {
                            rel.to_string()
                        }
                    };
                    let from = if s.from == 25 {
                        "bar".to_string()
                    } else {
                        abs(s.from)
                    };
                    let to = if s.to == 0 {
                        home_word.to_string()
                    } else {
                        abs(s.to)
                    };
                    format!("{from}-{to}")
                })
                .collect();
            out.push(format!("{OPPONENT} moves {} .", text.join(" ")));
        }
        let after = play.position;
        {
            let gm = self.game_mut().unwrap();
            gm.bot_view = after.swap();
            gm.alice_turns = gm.alice_turns.max(1);
        }
        if let Some(result) = after.mover_result() {
            let c = self.game().unwrap().cube;
            self.game_over(Side::Alice, c * result.points() as u32, Ending::Played, out);
        } else {
            self.bot_turn_begin(out);
        }
    }

    pub(super) fn game_over(
        &mut self,
        winner: Side,
        points: u32,
        ending: Ending,
        out: &mut Vec<String>,
    ) {
        let len = self.script.match_length;
        self.game_ended_now = true;
        self.log.games.push((winner == Side::Bot, points));
        let s = if points == 1 { "" } else { "s" };
        // FIBS words each way a game can end differently.
        out.push(match (ending, winner) {
            (Ending::Played, Side::Bot) => {
                format!("You win the game and get {points} point{s}. Congratulations!")
            }
            (Ending::Played, Side::Alice) => {
                format!("{OPPONENT} wins the game and gets {points} point{s}. Sorry.")
            }
            (Ending::Dropped, Side::Bot) => {
                format!("{OPPONENT} gives up. You win {points} point{s}.")
            }
            (Ending::Dropped, Side::Alice) => {
                format!("You give up. {OPPONENT} wins {points} point{s}.")
            }
            (Ending::Resigned, Side::Bot) => format!("You accept and win {points} point{s}."),
            (Ending::Resigned, Side::Alice) => {
                format!("{OPPONENT} accepts and wins {points} point{s}.")
            }
        });
        let m = self.the_match.as_mut().unwrap();
        m.score[winner.idx()] += points;
        m.game = None;
        let [me, her] = m.score;
        out.push(format!(
            "score in {len} point match: You-{me} {OPPONENT}-{her}"
        ));
        if me >= len || her >= len {
            if me >= len {
                out.push(format!("You win the {len} point match {me}-{her} ."));
            } else {
                out.push(format!(
                    "{OPPONENT} wins the {len} point match {her}-{me} ."
                ));
            }
            self.log.matches.push((me, her));
            self.the_match = None;
            let enough = !self.script.play_all_matches
                && self.log.crawford_games > 0
                && self.log.bot_doubles + self.log.alice_doubles > 0;
            if enough || self.matches_started >= self.script.max_matches {
                self.finished = true;
            } else {
                self.invite_new(out);
            }
        } else {
            m.between_games = true;
            out.push(line(
                "Type 'join' if you want to play the next game, type 'leave' if you don't.",
            ));
        }
    }

    /// Alice comes back after a drop.
    pub fn alice_returns(&mut self) -> Vec<String> {
        if self.alice_online {
            return Vec::new();
        }
        self.alice_online = true;
        vec![format!("7 {OPPONENT} {OPPONENT} logs in.")]
    }

    /// The server goes down: the match is saved, the bot is logged out.
    pub fn shut_down(&mut self) {
        self.bot_disconnected();
        self.log.restarts += 1;
    }

    /// The connection to the bot closed without a server restart.
    pub fn bot_disconnected(&mut self) {
        // The outbox holds the connection's writer open: drop it so the bot sees the close.
        self.outbox = None;
        self.due_since = None;
        if self.alice_quiet.take().is_some() {
            // She never took the turn: on resuming she takes it afresh.
            if let Some(g) = self.game_mut() {
                g.alice_turns -= 1;
            }
        }
        self.logged_in = false;
        self.invited.clear();
        if self.the_match.is_some() {
            self.saved = true;
        }
    }

    /// The board from the bot's view in real-FIBS convention (boardstyle 3).
    pub fn board_line(&self) -> String {
        let m = self.the_match.as_ref().unwrap();
        let g = m.game.as_ref().unwrap();
        let len = self.script.match_length;
        let col = g.bot_colour;
        // Absolute board: O moves 24 -> 1 with its bar in slot 25; X moves 1 -> 24 with its
        // bar in slot 0. Positive = O, negative = X.
        let s = g.bot_view.slots();
        let mut board = [0i32; 26];
        for i in 0..26 {
            board[i] = if col == 1 {
                s[i] as i32
            } else {
                -(s[25 - i] as i32)
            };
        }
        let turn = match (g.pending_double, g.turn) {
            (Some(Side::Alice), _) => -col,
            (Some(Side::Bot), _) => col,
            (None, Side::Bot) => col,
            (None, Side::Alice) => -col,
        } as i32;
        let (my_dice, opp_dice) = match (g.turn, g.dice) {
            (Side::Bot, Some(d)) => ((d.high(), d.low()), (0, 0)),
            (Side::Alice, Some(d)) => ((0, 0), (d.high(), d.low())),
            _ => ((0, 0), (0, 0)),
        };
        let can_move = match (g.turn, g.dice) {
            (Side::Bot, Some(d)) => legal_plays(&g.bot_view, d)
                .iter()
                .map(|p| p.steps().len())
                .max()
                .unwrap_or(0),
            _ => 0,
        };
        let direction = -col as i32;
        let (home, bar) = if direction == -1 { (0, 25) } else { (25, 0) };
        let mut t: Vec<String> = vec![
            "board".into(),
            "You".into(),
            OPPONENT.into(),
            len.to_string(),
            m.score[0].to_string(),
            m.score[1].to_string(),
        ];
        t.extend(board.iter().map(|c| c.to_string()));
        t.push(turn.to_string());
        t.push(my_dice.0.to_string());
        t.push(my_dice.1.to_string());
        t.push(opp_dice.0.to_string());
        t.push(opp_dice.1.to_string());
        t.push(g.cube.to_string());
        t.push(u8::from(self.cube_access(Side::Bot)).to_string());
        t.push(u8::from(self.cube_access(Side::Alice)).to_string());
        t.push(u8::from(g.pending_double == Some(Side::Alice)).to_string());
        t.push(col.to_string());
        t.push(direction.to_string());
        t.push(home.to_string());
        t.push(bar.to_string());
        t.push(g.bot_view.off().to_string());
        t.push(g.bot_view.opp_off().to_string());
        t.push(g.bot_view.bar().to_string());
        t.push(g.bot_view.opp_bar().to_string());
        t.push(can_move.to_string());
        t.push("0".into());
        t.push(u8::from(m.crawford_done && !g.crawford).to_string());
        t.push("0".into());
        assert_eq!(t.len(), 53);
        t.join(":")
    }

    /// Cube access ignoring a pending double (what the may-double tokens show).
    pub(super) fn cube_access(&self, side: Side) -> bool {
        let Some(m) = self.the_match.as_ref() else {
            return false;
        };
        let Some(g) = m.game.as_ref() else {
            return false;
        };
        if g.crawford || g.owner == Some(side.other()) {
            return false;
        }
        let away = self.script.match_length - m.score[side.idx()];
        g.cube < away
    }
}
