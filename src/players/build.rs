//! The one builder of deciders: a [`PlayerSpec`] in, a [`PlayerFactory`] out.
//!
//! Which decider a spec gets:
//! - `pubeval`, `heuristic`, `random`: the fixed-rule players (checker plays only);
//! - `cubeful=on` (and `engine[...]`, the server's configuration): the engine facade for
//!   every decision, as `stargammon serve` answers;
//! - otherwise checker plays by cubeless equity: the net evaluating each play at depth 1
//!   (the fastest path, used by duels and training benchmarks), or a search player deeper
//!   or under a time budget; cube decisions, when asked for, from the engine of the same
//!   spec without its noise (noise only varies checker plays) but with its `cube_noise`
//!   (a player that errs on the cube).

use std::sync::Arc;

use super::split::Split;
use super::{
    EnginePlayer, HeuristicPlayer, NetPlayer, PlayerFactory, PlayerSpec, PubevalPlayer,
    RandomPlayer, SearchPlayer,
};
use crate::engine::build::{self as engine_build, BuildError};
use crate::engine::{CubePolicy, EngineSpec, EvaluatorKind, Noise};

/// What the caller will ask of the deciders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BuildOptions {
    /// Cube decisions will be asked (a match or game with the cube): refuse players that
    /// cannot answer them.
    pub cube: bool,
}

/// Loads what `spec` needs (weights, tables) and returns a factory of its deciders.
pub fn build(spec: &PlayerSpec, options: BuildOptions) -> Result<PlayerFactory, BuildError> {
    let e = &spec.engine;
    e.validate()?;
    let name = spec.text().to_string();
    if !e.evaluator.is_evaluator() {
        if options.cube {
            return Err(BuildError::NoEvaluator(name));
        }
        return Ok(match e.evaluator {
            EvaluatorKind::Pubeval => PlayerFactory::new(name, || Box::new(PubevalPlayer)),
            EvaluatorKind::Heuristic => {
                PlayerFactory::new(name, || Box::new(HeuristicPlayer::new()))
            }
            _ => PlayerFactory::new(name, || Box::new(RandomPlayer::new(0))),
        });
    }
    if e.cube_policy == CubePolicy::Cubeful {
        let engine = engine_build::engine(e)?;
        return Ok(PlayerFactory::new(name.clone(), move || {
            Box::new(EnginePlayer {
                name: name.clone(),
                engine: engine.clone(),
            })
        }));
    }
    let plays = checker_players(e, name.clone())?;
    if !options.cube {
        return Ok(plays);
    }
    let cube = engine_build::engine(&EngineSpec {
        noise: e.cube_noise,
        cube_noise: Noise::NONE,
        ..e.clone()
    })?;
    let n = name.clone();
    Ok(PlayerFactory::new(name, move || {
        Box::new(Split {
            name: n.clone(),
            checkers: plays.make(),
            cube: Box::new(EnginePlayer {
                name: n.clone(),
                engine: cube.clone(),
            }),
        })
    }))
}

/// Parses `text` as a [`PlayerSpec`] and builds it: the two steps every front end takes.
pub fn factory(
    text: &str,
    options: BuildOptions,
) -> Result<PlayerFactory, Box<dyn std::error::Error + Send + Sync>> {
    Ok(build(&PlayerSpec::parse(text)?, options)?)
}

/// Cubeless checker-play deciders of an evaluator spec.
fn checker_players(e: &EngineSpec, name: String) -> Result<PlayerFactory, BuildError> {
    if let (EvaluatorKind::Net(path), false) = (&e.evaluator, e.searches()) {
        let nets = Arc::new(engine_build::nets_with(path.as_deref(), e.precision)?);
        let noise = e.noise.sigma();
        let n = name.clone();
        return Ok(PlayerFactory::new(name, move || {
            Box::new(NetPlayer::new(nets.clone(), noise, n.clone()))
        }));
    }
    let evaluator =
        engine_build::with_noise(e, engine_build::evaluator_with(&e.evaluator, e.precision)?);
    let searcher = engine_build::searcher(e, evaluator);
    let settings = engine_build::plan(e).settings(e.depth.get());
    let n = name.clone();
    Ok(PlayerFactory::new(name, move || {
        Box::new(SearchPlayer::new(
            searcher.clone(),
            settings.clone(),
            n.clone(),
        ))
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::engine::Action;
    use crate::game::{legal_plays, Decision, Dice, MatchState, Position};

    fn answer(spec: &str, cube: bool, state: &MatchState) -> Action {
        let f = build(&PlayerSpec::parse(spec).unwrap(), BuildOptions { cube }).unwrap();
        let mut d = f.make();
        let plays = match state.decision {
            Decision::Move(dice) => legal_plays(&state.position, dice).to_vec(),
            _ => Vec::new(),
        };
        d.decide(state, &plays).unwrap()
    }

    #[test]
    fn every_kind_answers_a_checker_play() {
        let dice = Dice::new(6, 5).unwrap();
        let state = MatchState::money(Position::OPENING, Decision::Move(dice));
        let legal = legal_plays(&Position::OPENING, dice);
        for spec in [
            "net",
            "net,noise=0.02",
            "pipsigmoid",
            "pipsigmoid,depth=3",
            "pubeval",
            "heuristic",
            "random",
            "engine",
        ] {
            match answer(spec, false, &state) {
                Action::Move(p) => assert!(legal.contains(&p), "{spec}"),
                other => panic!("{spec}: {other:?}"),
            }
        }
    }

    #[test]
    fn cube_noise_varies_cube_decisions_only() {
        // Positions of a few games of random plays.
        let mut rng = crate::game::Rng::seeded(3);
        let mut positions = Vec::new();
        for _ in 0..10 {
            let mut pos = Position::OPENING;
            while !pos.is_game_over() && positions.len() < 150 {
                positions.push(pos);
                let plays = legal_plays(&pos, rng.dice());
                pos = plays[rng.index(plays.len())].next_position();
            }
        }
        let mut differ = 0;
        for pos in &positions {
            let state = MatchState::money(*pos, Decision::DoubleOrRoll);
            let plain = answer("net", true, &state);
            assert_eq!(answer("net,cube_noise=0", true, &state), plain);
            if answer("net,cube_noise=0.3", true, &state) != plain {
                differ += 1;
            }
        }
        assert!(
            differ > 0,
            "no cube decision of {} changed",
            positions.len()
        );
        // Checker plays stay those of the plain net.
        let dice = Dice::new(3, 1).unwrap();
        let state = MatchState::money(Position::OPENING, Decision::Move(dice));
        assert_eq!(
            answer("net,cube_noise=0.3", true, &state),
            answer("net", true, &state)
        );
    }

    #[test]
    fn cube_questions_need_an_evaluator() {
        let state = MatchState::money(Position::OPENING, Decision::DoubleOrRoll);
        assert_eq!(answer("net", true, &state), Action::Roll);
        assert_eq!(answer("pipsigmoid,depth=3", true, &state), Action::Roll);
        let e = build(
            &PlayerSpec::parse("pubeval").unwrap(),
            BuildOptions { cube: true },
        )
        .unwrap_err();
        assert!(e.to_string().contains("no cube decisions"), "{e}");
        // Without the cube in use, a checker-play player refuses a cube question.
        let f = build(&PlayerSpec::parse("net").unwrap(), BuildOptions::default()).unwrap();
        assert!(f.make().decide(&state, &[]).is_err());
    }
}
