//! gnubg's Position ID and Match ID.
//!
//! These are the ids gnubg prints under every board (`4HPwATDgc/ABMA:MAELAAAAAAAA`) and
//! the ones users paste, so the project reads and writes them bit for bit as gnubg does
//! (format: docs/protocols.md, "Position ID, Match ID and XGID", after the gnubg manual's
//! technical notes).
//!
//! - The Position ID holds the checkers only, seen by the **player on roll**: first the
//!   player not on roll, then the player on roll, each as 25 slots (own points 1..24, then
//!   the bar), one `1` bit per checker and a `0` after each slot; 80 bits, packed
//!   little-endian within bytes, Base64 without padding.
//! - The Match ID holds everything else in 66 bits, with players named 0 and 1 as in gnubg.
//!
//! [`MatchState`] is relative to the *acting* side, which is not the player on roll while
//! a double is pending (the taker acts); [`match_state_from_ids`] and
//! [`ids_from_match_state`] do that translation.

use std::fmt;

use crate::game::{
    CubeOwner, Decision, Dice, GameResult, MatchFacts, MatchState, Position, PositionError, Rules,
    StateError, CHECKERS, MAX_CUBE,
};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Length of a Position ID in characters.
pub const POSITION_ID_LEN: usize = 14;
/// Length of a Match ID in characters.
pub const MATCH_ID_LEN: usize = 12;

/// Why a text is not a valid Position ID or Match ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdError {
    /// The id has the wrong number of characters.
    Length {
        what: &'static str,
        expected: usize,
        found: usize,
    },
    /// A character outside gnubg's Base64 alphabet.
    BadChar { what: &'static str, ch: char },
    /// The Position ID's bits end before both sides' 25 slots are complete.
    Truncated,
    /// The Position ID gives a side more than 15 checkers.
    TooManyCheckers,
    /// The decoded checkers do not form a position.
    Position(PositionError),
    /// A Match ID field holds a value gnubg never writes.
    Field { field: &'static str, value: u32 },
    /// A Match ID field contradicts another one (the reason says how).
    Inconsistent {
        field: &'static str,
        why: &'static str,
    },
    /// The Match ID describes a state no game can reach.
    State(StateError),
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdError::Length {
                what,
                expected,
                found,
            } => write!(
                f,
                "a {what} has {expected} characters, this one has {found}"
            ),
            IdError::BadChar { what, ch } => {
                write!(f, "{ch:?} is not a Base64 character of a {what}")
            }
            IdError::Truncated => write!(f, "the Position ID ends before the board is complete"),
            IdError::TooManyCheckers => {
                write!(f, "the Position ID gives a side more than 15 checkers")
            }
            IdError::Position(e) => write!(f, "the Position ID is not a position: {e}"),
            IdError::Field { field, value } => {
                write!(
                    f,
                    "the Match ID's {field} field holds the invalid value {value}"
                )
            }
            IdError::Inconsistent { field, why } => write!(f, "the Match ID's {field} {why}"),
            IdError::State(e) => write!(f, "the Match ID is not a possible state: {e}"),
        }
    }
}

impl std::error::Error for IdError {}

impl From<StateError> for IdError {
    fn from(e: StateError) -> Self {
        IdError::State(e)
    }
}

impl From<PositionError> for IdError {
    fn from(e: PositionError) -> Self {
        IdError::Position(e)
    }
}

/// Base64 (gnubg's alphabet, no padding) of `bytes`.
fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let mut n = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            n |= (b as u32) << (16 - 8 * i);
        }
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Decodes `text` (exactly `N` bytes' worth of Base64 characters) into `N` bytes.
fn base64_decode<const N: usize>(
    text: &str,
    what: &'static str,
    len: usize,
) -> Result<[u8; N], IdError> {
    let found = text.chars().count();
    if found != len {
        return Err(IdError::Length {
            what,
            expected: len,
            found,
        });
    }
    let mut out = [0u8; N];
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut n = 0usize;
    for ch in text.chars() {
        let v = match ch {
            'A'..='Z' => ch as u32 - 'A' as u32,
            'a'..='z' => ch as u32 - 'a' as u32 + 26,
            '0'..='9' => ch as u32 - '0' as u32 + 52,
            '+' => 62,
            '/' => 63,
            _ => return Err(IdError::BadChar { what, ch }),
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            if n < N {
                out[n] = (acc >> bits) as u8;
                n += 1;
            }
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// The 10-byte position key of `pos` (seen by the player on roll).
pub fn position_key(pos: &Position) -> [u8; 10] {
    let (on_roll, other) = pos.to_sides();
    let mut key = [0u8; 10];
    let mut bit = 0usize;
    for side in [&other, &on_roll] {
        for &count in side.iter() {
            for _ in 0..count {
                key[bit / 8] |= 1 << (bit % 8);
                bit += 1;
            }
            bit += 1;
        }
    }
    key
}

/// The gnubg Position ID of `pos`, which must be seen by the player on roll.
pub fn position_id(pos: &Position) -> String {
    base64_encode(&position_key(pos))
}

/// Reads a gnubg Position ID into the position seen by the player on roll.
pub fn decode_position_id(text: &str) -> Result<Position, IdError> {
    let key: [u8; 10] = base64_decode(text, "Position ID", POSITION_ID_LEN)?;
    let mut sides = [[0u8; 25]; 2];
    let mut bit = 0usize;
    for side in sides.iter_mut() {
        let mut total = 0u32;
        for slot in side.iter_mut() {
            loop {
                if bit >= 80 {
                    return Err(IdError::Truncated);
                }
                let set = key[bit / 8] >> (bit % 8) & 1 == 1;
                bit += 1;
                if !set {
                    break;
                }
                total += 1;
                if total > CHECKERS as u32 {
                    return Err(IdError::TooManyCheckers);
                }
                *slot += 1;
            }
        }
    }
    // The first side is the player not on roll.
    Ok(Position::from_sides(&sides[1], &sides[0])?)
}

/// The game state field of a Match ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameState {
    NoGame = 0,
    Playing = 1,
    Over = 2,
    Resigned = 3,
    Dropped = 4,
}

/// Every field of a gnubg Match ID. Players are gnubg's 0 and 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatchId {
    /// Cube value: a power of two; the field holds up to 32768, gnubg accepts up to 4096.
    pub cube: u32,
    /// Cube owner; `None` when centred.
    pub cube_owner: Option<u8>,
    /// The player on roll (or who rolled).
    pub on_roll: u8,
    /// This game is the Crawford game.
    pub crawford: bool,
    pub game_state: GameState,
    /// The player who must act now (the taker while a double is pending).
    pub turn: u8,
    pub double_offered: bool,
    /// A resignation on offer and its size.
    pub resignation: Option<GameResult>,
    /// The dice as gnubg stores them (unordered); `None` before rolling.
    pub dice: Option<(u8, u8)>,
    /// Match length; 0 for money play.
    pub match_length: u32,
    /// Scores of player 0 and player 1.
    pub score: [u32; 2],
    /// The Jacoby rule is in use (stored inverted in bit 66).
    pub jacoby: bool,
}

impl Default for MatchId {
    /// A money game in progress, centred 1-cube, player 0 to roll, Jacoby on: what gnubg
    /// assumes when only a Position ID is given.
    fn default() -> Self {
        MatchId {
            cube: 1,
            cube_owner: None,
            on_roll: 0,
            crawford: false,
            game_state: GameState::Playing,
            turn: 0,
            double_offered: false,
            resignation: None,
            dice: None,
            match_length: 0,
            score: [0, 0],
            jacoby: true,
        }
    }
}

struct Bits<'a> {
    key: &'a mut [u8; 9],
    at: usize,
}

impl Bits<'_> {
    fn put(&mut self, value: u32, width: usize) {
        for i in 0..width {
            if value >> i & 1 == 1 {
                self.key[(self.at + i) / 8] |= 1 << ((self.at + i) % 8);
            }
        }
        self.at += width;
    }
}

fn field(key: &[u8; 9], at: usize, width: usize) -> u32 {
    (0..width).fold(0, |acc, i| {
        let bit = at + i;
        acc | (((key[bit / 8] >> (bit % 8)) & 1) as u32) << i
    })
}

impl MatchId {
    /// The 9-byte match key, or an error naming a field that does not fit its bits.
    pub fn key(&self) -> Result<[u8; 9], IdError> {
        if !self.cube.is_power_of_two() || self.cube > 1 << 15 {
            return Err(IdError::Field {
                field: "cube",
                value: self.cube,
            });
        }
        for (name, v, max) in [
            ("match length", self.match_length, 0x7fff),
            ("player 0 score", self.score[0], 0x7fff),
            ("player 1 score", self.score[1], 0x7fff),
            ("player on roll", self.on_roll as u32, 1),
            ("player to act", self.turn as u32, 1),
        ] {
            if v > max {
                return Err(IdError::Field {
                    field: name,
                    value: v,
                });
            }
        }
        let (d1, d2) = self.dice.unwrap_or((0, 0));
        for d in [d1, d2] {
            if self.dice.is_some() && !(1..=6).contains(&d) {
                return Err(IdError::Field {
                    field: "dice",
                    value: d as u32,
                });
            }
        }
        let owner = match self.cube_owner {
            None => 3,
            Some(p @ (0 | 1)) => p as u32,
            Some(p) => {
                return Err(IdError::Field {
                    field: "cube owner",
                    value: p as u32,
                })
            }
        };
        let mut key = [0u8; 9];
        let mut bits = Bits {
            key: &mut key,
            at: 0,
        };
        bits.put(self.cube.trailing_zeros(), 4);
        bits.put(owner, 2);
        bits.put(self.on_roll as u32, 1);
        bits.put(self.crawford as u32, 1);
        bits.put(self.game_state as u32, 3);
        bits.put(self.turn as u32, 1);
        bits.put(self.double_offered as u32, 1);
        bits.put(self.resignation.map_or(0, |r| r as u32), 2);
        bits.put(d1 as u32, 3);
        bits.put(d2 as u32, 3);
        bits.put(self.match_length, 15);
        bits.put(self.score[0], 15);
        bits.put(self.score[1], 15);
        bits.put(!self.jacoby as u32, 1);
        Ok(key)
    }

    /// The 12-character Match ID.
    pub fn encode(&self) -> Result<String, IdError> {
        Ok(base64_encode(&self.key()?))
    }

    /// Reads a Match ID, rejecting values gnubg never writes.
    pub fn decode(text: &str) -> Result<MatchId, IdError> {
        let key: [u8; 9] = base64_decode(text, "Match ID", MATCH_ID_LEN)?;
        let bad = |field: &'static str, value: u32| IdError::Field { field, value };
        let cube_owner = match field(&key, 4, 2) {
            3 => None,
            2 => return Err(bad("cube owner", 2)),
            p => Some(p as u8),
        };
        let game_state = match field(&key, 8, 3) {
            0 => GameState::NoGame,
            1 => GameState::Playing,
            2 => GameState::Over,
            3 => GameState::Resigned,
            4 => GameState::Dropped,
            v => return Err(bad("game state", v)),
        };
        let resignation = match field(&key, 13, 2) {
            0 => None,
            1 => Some(GameResult::Single),
            2 => Some(GameResult::Gammon),
            _ => Some(GameResult::Backgammon),
        };
        let d1 = field(&key, 15, 3);
        let d2 = field(&key, 18, 3);
        let dice = match (d1, d2) {
            (0, 0) => None,
            (1..=6, 1..=6) => Some((d1 as u8, d2 as u8)),
            _ => return Err(bad("dice", d1 * 8 + d2)),
        };
        let m = MatchId {
            cube: 1 << field(&key, 0, 4),
            cube_owner,
            on_roll: field(&key, 6, 1) as u8,
            crawford: field(&key, 7, 1) == 1,
            game_state,
            turn: field(&key, 11, 1) as u8,
            double_offered: field(&key, 12, 1) == 1,
            resignation,
            dice,
            match_length: field(&key, 21, 15),
            score: [field(&key, 36, 15), field(&key, 51, 15)],
            jacoby: field(&key, 66, 1) == 0,
        };
        m.check()?;
        Ok(m)
    }

    /// Refuses what gnubg never writes and no game reaches, so that every Match ID read
    /// prints back bit for bit: fields that contradict each other, a cube above gnubg's
    /// largest, and the match states [`MatchFacts::check`] refuses.
    pub fn check(&self) -> Result<(), IdError> {
        let inconsistent = |field, why| Err(IdError::Inconsistent { field, why });
        if self.cube > MAX_CUBE {
            return Err(IdError::Field {
                field: "cube",
                value: self.cube,
            });
        }
        if let Some((a, b)) = self.dice {
            if a < b {
                return inconsistent("dice", "list the lower die first, which gnubg never writes");
            }
            if self.double_offered {
                return inconsistent("dice", "are rolled while a double is offered");
            }
        }
        if self.double_offered && self.resignation.is_some() {
            return inconsistent("resignation", "is offered while a double is pending");
        }
        if self.game_state == GameState::Playing
            && self.turn != self.on_roll
            && !self.double_offered
            && self.resignation.is_none()
        {
            return inconsistent(
                "player to act",
                "is not the player on roll, with no double or resignation to answer",
            );
        }
        MatchFacts {
            match_length: self.match_length,
            scores: self.score,
            in_play: self.game_state == GameState::Playing,
            cube: self.cube,
            cube_centred: self.cube_owner.is_none(),
            crawford: self.crawford,
            double_pending: self.double_offered,
        }
        .check()?;
        Ok(())
    }
}

/// Cube access as the typed match state records it: the side owns or shares the cube and
/// this is not the Crawford game.
pub(crate) fn may_double(owner: CubeOwner, crawford: bool, over: bool) -> bool {
    !crawford && !over && owner != CubeOwner::Opponent
}

/// Post-Crawford: a match game after the Crawford game, i.e. one side is one point away
/// and this game is not the Crawford game.
pub(crate) fn post_crawford(match_length: u32, scores: [u32; 2], crawford: bool) -> bool {
    match_length > 0 && !crawford && scores.iter().any(|&s| s + 1 == match_length)
}

/// Builds the typed match state from a position seen by the player on roll and a Match ID.
///
/// The acting side is the taker while a double is pending, otherwise the player on roll.
/// A resignation on offer is not part of [`MatchState`]: the state is then the one the
/// game would continue with (the Match ID keeps the offer).
pub fn match_state_from_ids(on_roll_view: &Position, m: &MatchId) -> Result<MatchState, IdError> {
    let acting = if m.double_offered { m.turn } else { m.on_roll };
    let position = if acting == m.on_roll {
        *on_roll_view
    } else {
        on_roll_view.swap()
    };
    let over = m.game_state != GameState::Playing || position.is_game_over();
    let decision = if over {
        Decision::GameOver
    } else if m.double_offered {
        if m.turn == m.on_roll {
            Decision::BeaverAnswer
        } else {
            Decision::TakeOrDrop
        }
    } else if let Some((a, b)) = m.dice {
        Decision::Move(Dice::new(a, b).map_err(|e| IdError::Field {
            field: "dice",
            value: e.die as u32,
        })?)
    } else {
        Decision::DoubleOrRoll
    };
    let cube_owner = match m.cube_owner {
        None => CubeOwner::Centered,
        Some(p) if p == acting => CubeOwner::Me,
        Some(_) => CubeOwner::Opponent,
    };
    let a = acting as usize & 1;
    let state = MatchState {
        position,
        decision,
        cube: m.cube,
        cube_owner,
        may_double: may_double(cube_owner, m.crawford, over),
        opp_may_double: may_double(cube_owner.swap(), m.crawford, over),
        match_length: m.match_length,
        score: m.score[a],
        opp_score: m.score[1 - a],
        crawford: m.crawford,
        post_crawford: post_crawford(m.match_length, m.score, m.crawford),
        acting_player: acting,
        names: (String::new(), String::new()),
        rules: Rules {
            jacoby: Some(m.jacoby),
            beavers: None,
        },
        dice_low_first: false,
    };
    state.check()?;
    Ok(state)
}

/// The position seen by the player on roll and the Match ID of a typed match state.
///
/// The acting side is gnubg's player `acting_player & 1`. The Jacoby flag is the state's
/// where it has one, else what gnubg writes for an XGID (on for money play only).
pub fn ids_from_match_state(ms: &MatchState) -> (Position, MatchId) {
    let acting = ms.acting_player & 1;
    let other = 1 - acting;
    let (on_roll, position, double_offered, dice, game_state) = match ms.decision {
        Decision::TakeOrDrop => (other, ms.position.swap(), true, None, GameState::Playing),
        Decision::BeaverAnswer => (acting, ms.position, true, None, GameState::Playing),
        Decision::Move(d) => (
            acting,
            ms.position,
            false,
            Some((d.high(), d.low())),
            GameState::Playing,
        ),
        Decision::DoubleOrRoll => (acting, ms.position, false, None, GameState::Playing),
        Decision::GameOver => (acting, ms.position, false, None, GameState::Over),
    };
    let cube_owner = match ms.cube_owner {
        CubeOwner::Centered => None,
        CubeOwner::Me => Some(acting),
        CubeOwner::Opponent => Some(other),
    };
    let mut score = [0; 2];
    score[acting as usize] = ms.score;
    score[other as usize] = ms.opp_score;
    let id = MatchId {
        cube: ms.cube,
        cube_owner,
        on_roll,
        crawford: ms.crawford,
        game_state,
        turn: acting,
        double_offered,
        resignation: None,
        dice,
        match_length: ms.match_length,
        score,
        jacoby: ms.rules.jacoby.unwrap_or(ms.is_money()),
    };
    (position, id)
}

/// The Position ID and Match ID of a typed match state.
pub fn encode_match_state(ms: &MatchState) -> Result<(String, String), IdError> {
    let (pos, id) = ids_from_match_state(ms);
    Ok((position_id(&pos), id.encode()?))
}

/// Reads `PositionID` or `PositionID:MatchID` (surrounding spaces ignored). A lone
/// Position ID means a money game with the player on roll to act before rolling, under
/// whatever rules the configuration sets.
pub fn parse_gnubg_ids(text: &str) -> Result<MatchState, IdError> {
    let text = text.trim();
    let (pos_text, match_text) = match text.split_once(':') {
        Some((p, m)) => (p, Some(m)),
        None => (text, None),
    };
    let position = decode_position_id(pos_text.trim())?;
    match match_text {
        Some(m) => match_state_from_ids(&position, &MatchId::decode(m.trim())?),
        None => {
            let mut state = match_state_from_ids(&position, &MatchId::default())?;
            state.rules = Rules::default();
            Ok(state)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_position_id() {
        assert_eq!(position_id(&Position::OPENING), "4HPwATDgc/ABMA");
        assert_eq!(
            position_key(&Position::OPENING),
            [0xE0, 0x73, 0xF0, 0x01, 0x30, 0xE0, 0x73, 0xF0, 0x01, 0x30]
        );
        assert_eq!(
            decode_position_id("4HPwATDgc/ABMA").expect("valid"),
            Position::OPENING
        );
    }

    #[test]
    fn manual_match_id_example() {
        // gnubg manual: 9-point match, score 2-4, P0 owns a 2-cube, P1 has rolled 5-2.
        let m = MatchId::decode("QYkqASAAIAAA").expect("valid");
        assert_eq!(m.cube, 2);
        assert_eq!(m.cube_owner, Some(0));
        assert_eq!(m.on_roll, 1);
        assert_eq!(m.turn, 1);
        assert!(!m.crawford);
        assert_eq!(m.game_state, GameState::Playing);
        assert_eq!(m.dice, Some((5, 2)));
        assert_eq!(m.match_length, 9);
        assert_eq!(m.score, [2, 4]);
        assert!(!m.double_offered);
        assert_eq!(m.resignation, None);
        assert!(m.jacoby);
        assert_eq!(m.encode().expect("encodes"), "QYkqASAAIAAA");
    }

    #[test]
    fn money_opening_match_id() {
        let m = MatchId::decode("MAELAAAAAAAA").expect("valid");
        assert_eq!(m.cube, 1);
        assert_eq!(m.cube_owner, None);
        assert_eq!(m.match_length, 0);
        assert_eq!(m.game_state, GameState::Playing);
        assert_eq!(m.dice, Some((6, 2)));
        assert_eq!(m.on_roll, 0);
        assert!(m.jacoby);
        assert_eq!(m.encode().expect("encodes"), "MAELAAAAAAAA");
        let ms = parse_gnubg_ids("4HPwATDgc/ABMA:MAELAAAAAAAA").expect("valid");
        assert_eq!(ms.decision, Decision::Move(Dice::new(6, 2).expect("dice")));
        assert_eq!(ms.position, Position::OPENING);
        assert!(ms.is_money());
    }

    #[test]
    fn taker_sees_the_position_from_its_side() {
        let (pos, mut id) = ids_from_match_state(&MatchState::money(
            Position::OPENING,
            Decision::DoubleOrRoll,
        ));
        let mut s = *pos.slots();
        s[24] = 1;
        s[23] = 1;
        let pos = Position::from_slots(s).expect("valid");
        id.double_offered = true;
        id.turn = 1;
        let ms = match_state_from_ids(&pos, &id).expect("valid");
        assert_eq!(ms.decision, Decision::TakeOrDrop);
        assert_eq!(ms.acting_player, 1);
        assert_eq!(ms.position, pos.swap());
        let (back_pos, back_id) = ids_from_match_state(&ms);
        assert_eq!(back_pos, pos);
        assert_eq!(back_id, id);
    }

    #[test]
    fn rejects_bad_ids() {
        assert!(matches!(
            decode_position_id("4HPwATDgc/ABM"),
            Err(IdError::Length { .. })
        ));
        assert!(matches!(
            decode_position_id("4HPwATDgc/AB!A"),
            Err(IdError::BadChar { .. })
        ));
        assert!(matches!(
            decode_position_id("//////////////"),
            Err(IdError::TooManyCheckers)
        ));
        assert!(matches!(
            MatchId::decode("MAEL"),
            Err(IdError::Length { .. })
        ));
    }

    #[test]
    fn rejects_ids_of_impossible_states_as_gnubg_does() {
        use crate::game::StateError;
        // Each built field by field; gnubg 1.07's `set matchid` refuses the first ones.
        for (text, want) in [
            // Score 9-3 in a 3-point match.
            (
                "MIFqAJAAGAAA",
                IdError::State(StateError::Score {
                    score: 9,
                    length: 3,
                }),
            ),
            // A 65-point match.
            ("MIEqCBAAEAAA", IdError::State(StateError::MatchLength(65))),
            // The Crawford flag in money play.
            ("sIEKAAAAAAAA", IdError::State(StateError::CrawfordInMoney)),
            // A cube of 8192, above gnubg's largest.
            (
                "DYEKAAAAAAAA",
                IdError::Field {
                    field: "cube",
                    value: 8192,
                },
            ),
        ] {
            assert_eq!(MatchId::decode(text), Err(want), "{text}");
        }
        // What gnubg reads but changes (and so would not print back): a turned cube in
        // the Crawford game, a Crawford flag nobody is one away for, the lower die first,
        // the player to act not on roll, dice with a double offered.
        for text in [
            "gYGqAEAAEAAA",
            "gIGqAEAAEAAA",
            "sIGqABAAEAAA",
            "MAG1AAAAAAAA",
            "MImqAAAAAAAA",
            "MJmqAAAAAAAA",
        ] {
            assert!(MatchId::decode(text).is_err(), "{text}");
        }
        // Reachable: 5-point match at 1-2, and a finished 3-point match at 3-1.
        for text in ["MIGqABAAEAAA", "MAJgADAACAAA"] {
            let m = MatchId::decode(text).expect("valid");
            assert_eq!(m.encode().expect("encodes"), text);
        }
    }

    #[test]
    fn the_jacoby_bit_survives_the_typed_state() {
        for text in ["4HPwATDgc/ABMA:cIkKAAAAAAAE", "4HPwATDgc/ABMA:cIkKAAAAAAAA"] {
            let ms = parse_gnubg_ids(text).expect("valid");
            let (pos, id) = encode_match_state(&ms).expect("encodes");
            assert_eq!(format!("{pos}:{id}"), text);
        }
        // A lone Position ID states no rules.
        let ms = parse_gnubg_ids("4HPwATDgc/ABMA").expect("valid");
        assert_eq!(ms.rules, Rules::default());
    }
}
