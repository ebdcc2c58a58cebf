//! The cube dialogue of a turn: "double or roll?" to the side to act and, after a
//! double, "take or drop?" to its opponent.

use std::ops::ControlFlow;

use super::game::{forfeit_record, wrong_kind, Ending, Event, GameRecord, Table};
use crate::engine::Action;
use crate::game::{Decision, Position};
use crate::players::Decide;

/// Asks `turn`, which may double, whether it doubles before its roll and, after a double,
/// asks the opponent whether it takes; a take doubles the cube and gives it to the taker.
/// The game's events pass through: they come back to go on with the turn, or end up in
/// the record when the game ends here (a drop, or an answer that forfeits).
pub(super) fn double_or_roll(
    seats: &mut [&mut dyn Decide; 2],
    table: &mut Table,
    turn: usize,
    position: Position,
    opening: (u8, u8),
    mut events: Vec<Event>,
) -> ControlFlow<GameRecord, Vec<Event>> {
    let state = table.state(turn, position, Decision::DoubleOrRoll);
    match seats[turn].decide(&state, &[]) {
        Err(e) => ControlFlow::Break(forfeit_record(turn, table, opening, events, e)),
        Ok(Action::Roll) => ControlFlow::Continue(events),
        Ok(Action::Double) => {
            let taker = 1 - turn;
            events.push(Event::Double {
                seat: turn,
                cube: table.cube * 2,
            });
            let take_state = table.state(taker, position.swap(), Decision::TakeOrDrop);
            match seats[taker].decide(&take_state, &[]) {
                Err(e) => ControlFlow::Break(forfeit_record(taker, table, opening, events, e)),
                // Beavers are not in use here: keeping the doubled cube is a take.
                Ok(Action::Take | Action::Beaver) => {
                    events.push(Event::Take { seat: taker });
                    table.cube *= 2;
                    table.owner = Some(taker);
                    ControlFlow::Continue(events)
                }
                Ok(Action::Drop) => {
                    events.push(Event::Drop { seat: taker });
                    ControlFlow::Break(GameRecord {
                        winner: turn,
                        points: table.cube,
                        ending: Ending::Dropped,
                        cube: table.cube,
                        opening,
                        events,
                        forfeit: None,
                    })
                }
                Ok(other) => {
                    let e = wrong_kind(&take_state, &other, "take or drop");
                    ControlFlow::Break(forfeit_record(taker, table, opening, events, e))
                }
            }
        }
        Ok(other) => {
            let e = wrong_kind(&state, &other, "double or roll");
            ControlFlow::Break(forfeit_record(turn, table, opening, events, e))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::arena::referee::testing::{money, seat};
    use crate::arena::referee::{play_game, DiceStream, Ending, Event, MAX_CUBE};
    use crate::players::Decide;

    #[test]
    fn a_dropped_double_gives_the_doubler_the_cube_value() {
        let mut a = seat(1, 1.0, false);
        let mut b = seat(2, 1.0, false);
        let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
        let g = play_game(&mut seats, &mut DiceStream::new(7), &money(true));
        assert_eq!(g.ending, Ending::Dropped);
        assert_eq!(g.points, 1);
        // The second player to act doubles at its first turn and the starter drops.
        let starter = if g.opening.0 > g.opening.1 { 0 } else { 1 };
        assert_eq!(g.winner, 1 - starter);
    }

    #[test]
    fn the_cube_passes_to_the_taker() {
        let mut a = seat(1, 1.0, true);
        let mut b = seat(2, 1.0, true);
        let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
        let g = play_game(&mut seats, &mut DiceStream::new(9), &money(true));
        // Every turn both sides redouble and take until the cube reaches its limit.
        assert_eq!(g.cube, MAX_CUBE);
        let doubles: Vec<_> = g
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Double { seat, .. } => Some(*seat),
                _ => None,
            })
            .collect();
        assert!(doubles.windows(2).all(|w| w[0] != w[1]));
    }
}
