//! The stand-in's game commands from the bot: roll, double, resign, ok, reset and move,
//! each refereed as the real server does.

use std::time::Instant;

use serde_json::json;
use stargammon::game::Rng;

use super::rules::basic_step;
use super::{notice, parse_space, Game, Tx, World};

impl World {
    pub(super) fn game_command(&mut self, mi: usize, tx: &Tx, keyword: &str, params: &[&str]) {
        let (bs, points) = (self.matches[mi].bot_seat, self.matches[mi].points);
        let g = &self.matches[mi].g;
        if g.winner != 0 || self.matches[mi].over {
            return;
        }
        match keyword {
            "roll" | "r" => {
                if g.turn == 0 && g.dice[(bs - 1) as usize] == 0 {
                    let d = self.roll_die();
                    self.matches[mi].g.dice[(bs - 1) as usize] = d;
                    let me = self.name_of(mi, bs);
                    self.send(tx, json!({"Type":"rolled","Player":me,"Roll1":d,"Roll2":0,"Roll3":0,"Selected":false}));
                    self.opening(mi);
                    self.alice(mi);
                } else if g.turn == bs && g.dice[0] == 0 && !g.offered {
                    let mut rng = std::mem::replace(&mut self.rng, Rng::seeded(0));
                    self.matches[mi].g.roll(&mut rng);
                    self.rng = rng;
                    let d = self.matches[mi].g.dice;
                    let me = self.name_of(mi, bs);
                    self.send(tx, json!({"Type":"rolled","Player":me,"Roll1":d[0],"Roll2":d[1],"Roll3":0,"Selected":false}));
                    self.show(mi);
                } else {
                    self.send(tx, json!({"Type":"failedroll","Player":"","Reason":"It is not your turn to roll."}));
                }
            }
            "double" | "d" => {
                if g.turn != bs {
                    let _ = tx.send(notice("It is not your turn."));
                } else if g.dice[0] != 0 || !g.may_double(bs, points) {
                    let _ = tx.send(notice("You may not double at this time."));
                } else {
                    self.report.doubles_by_bot += 1;
                    self.matches[mi].g.offered = true;
                    let _ = tx.send(notice("Double offered to opponent."));
                    self.alice(mi);
                }
            }
            "resign" => {
                if g.offered && g.turn != bs {
                    let v = g.value(3 - bs);
                    self.matches[mi].g.offered = false;
                    self.win(mi, 3 - bs, v);
                } else if g.turn != bs {
                    let _ = tx.send(notice("You may not resign until it is your turn."));
                } else {
                    let v = g.value(3 - bs);
                    self.win(mi, 3 - bs, v);
                }
            }
            "ok" | "k" => {
                if g.offered {
                    if g.turn != bs {
                        let g = &mut self.matches[mi].g;
                        g.offered = false;
                        g.cube *= 2;
                        g.owner = bs;
                        let _ = tx.send(notice("Accepted double."));
                        self.show(mi);
                        self.alice(mi);
                    }
                    return;
                }
                if g.turn != bs {
                    let _ = tx.send(notice("It is not your turn."));
                    return;
                }
                if g.dice[0] == 0 {
                    let _ = tx.send(notice("You must roll first."));
                    return;
                }
                let here = g.view(bs);
                if !g.targets().contains(&here) {
                    if self.matches[mi].tainted {
                        self.report.after_rejection += 1;
                    } else {
                        self.report.failed_oks += 1;
                    }
                    let list: Vec<String> = g
                        .available()
                        .iter()
                        .map(|&(f, t, _)| format!("{f}/{t}"))
                        .collect();
                    self.send(tx, json!({"Type":"failedok","Player":"","Reason":format!("The following legal moves are available: {}", list.join(", "))}));
                    self.matches[mi].waiting_since = Some(Instant::now());
                    return;
                }
                self.next_turn(mi, 3 - bs);
            }
            "reset" => {
                if g.turn == bs && !g.steps.is_empty() {
                    let g = &mut self.matches[mi].g;
                    let start = g.start;
                    g.set_view(bs, start);
                    g.left = if g.dice[0] == g.dice[1] {
                        vec![g.dice[0]; 4]
                    } else {
                        g.dice.to_vec()
                    };
                    g.steps.clear();
                    let me = self.name_of(mi, bs);
                    self.send(tx, json!({"Type":"moved","Player":me,"Moves":[]}));
                    self.show(mi);
                }
            }
            "move" | "m" | "mv" => {
                if g.turn != bs || g.dice[0] == 0 {
                    self.send(tx, json!({"Type":"failedmove","Player":"","From":0,"To":0,"Reason":"It is not your turn to move."}));
                    return;
                }
                if params.is_empty() {
                    self.failed_move(
                        mi,
                        "Specify one or more moves in the form FROM/TO. For example: 8/4 6/4",
                    );
                    return;
                }
                let mut trial = Game {
                    ..self.matches[mi].g.clone_game()
                };
                for p in params {
                    let parsed = p
                        .split_once('/')
                        .and_then(|(a, b)| Some((parse_space(a)?, parse_space(b)?)));
                    let Some((from, to)) = parsed else {
                        self.failed_move(
                            mi,
                            "Specify one or more moves in the form FROM/TO. For example: 8/4 6/4",
                        );
                        return;
                    };
                    let slot = |v: i64| -> Option<u8> {
                        match v {
                            26 => Some(25),
                            0 => Some(0),
                            1..=24 => Some(v as u8),
                            _ => None,
                        }
                    };
                    let step =
                        slot(from)
                            .zip(slot(to))
                            .filter(|&(f, _)| f != 0)
                            .and_then(|(f, t)| {
                                trial
                                    .available()
                                    .into_iter()
                                    .find(|&(af, at, _)| af == f && at == t)
                            });
                    let Some((f, t, i)) = step else {
                        if self.matches[mi].tainted {
                            self.report.after_rejection += 1;
                        } else {
                            self.report.illegal_steps += 1;
                        }
                        self.failed_move(mi, "Illegal move.");
                        return;
                    };
                    let d = trial.left.remove(i);
                    let q = basic_step(&trial.view(bs), f, d).unwrap();
                    trial.set_view(bs, q);
                    trial.steps.push((f, t));
                }
                let reject = self.opts.faults.reject;
                if self.chance(reject) {
                    self.report.rejections += 1;
                    self.matches[mi].tainted = true;
                    self.failed_move(mi, "Illegal move.");
                    return;
                }
                let new_steps: Vec<Vec<i64>> = trial.steps[self.matches[mi].g.steps.len()..]
                    .iter()
                    .map(|&(f, t)| vec![if f == 25 { 26 } else { f as i64 }, t as i64])
                    .collect();
                self.matches[mi].g = trial;
                let me = self.name_of(mi, bs);
                self.send(tx, json!({"Type":"moved","Player":me,"Moves":new_steps}));
                if self.matches[mi].g.view(bs).off() == 15 {
                    let v = self.matches[mi].g.value(bs);
                    self.win(mi, bs, v);
                    return;
                }
                self.show(mi);
            }
            _ => {
                let _ = tx.send(notice(&format!("Unknown command: {keyword}")));
            }
        }
    }
}
