//! `GET`/`POST /v1/tavli/move`: the plays of a roll in a Tavli game, ranked by the game's
//! net (docs/VARIANTS.md, "Over the wire"). Parameters: `variant` (portes, plakoto, fevga;
//! optional when the position string names its game or the server's `server.variant` is a
//! Tavli game), `position` (a position string), `dice`, `depth` (odd, 1 to 9; default the
//! engine's, at most 5; capped by `server.max_request_depth`). The roll is searched as
//! backgammon's decisions are: the configured algorithm and time budget, on the pool's
//! lanes.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query as QueryString, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::params::{dice_param, json_object, kind_of, read_body, uint_param, Raw};
use super::reply::r6;
use super::{json_response, ApiError, App};
use crate::game::{Dice, Variant};
use crate::tavli::TavliPosition;

const FIELDS: [&str; 4] = ["variant", "position", "dice", "depth"];

/// A request, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TavliParams {
    position: TavliPosition,
    dice: Dice,
    depth: Option<u32>,
}

fn text_param<'a>(name: &str, raw: Raw<'a>) -> Result<&'a str, ApiError> {
    match raw {
        Raw::Text(s) => Ok(s),
        Raw::Json(Value::String(s)) => Ok(s),
        Raw::Json(v) => Err(ApiError::bad_request(format!(
            "{name}: expected a string, found {}",
            kind_of(v)
        ))),
    }
}

fn read<'a>(
    session: Variant,
    pairs: impl Iterator<Item = (&'a str, Raw<'a>)>,
) -> Result<TavliParams, ApiError> {
    let (mut variant, mut position, mut dice, mut depth) = (None, None, None, None);
    let mut seen: Vec<&str> = Vec::new();
    for (name, raw) in pairs {
        if !FIELDS.contains(&name) {
            return Err(ApiError::bad_request(format!(
                "unknown parameter {name:?} (this route takes {})",
                FIELDS.join(", ")
            )));
        }
        if seen.contains(&name) {
            return Err(ApiError::bad_request(format!("{name} is given twice")));
        }
        seen.push(name);
        match name {
            "variant" => {
                // Exactly the names of the document's enum.
                let text = text_param(name, raw)?;
                let v = [Variant::Portes, Variant::Plakoto, Variant::Fevga]
                    .into_iter()
                    .find(|v| v.name() == text)
                    .ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "variant: {:?} (this route plays portes, plakoto or fevga; \
                             backgammon is /v1/move)",
                            text.chars().take(20).collect::<String>()
                        ))
                    })?;
                variant = Some(v);
            }
            "position" => position = Some(text_param(name, raw)?.trim().to_string()),
            "dice" => dice = Some(dice_param(raw)?),
            "depth" => {
                depth = Some(match uint_param(name, raw)? {
                    d @ (1 | 3 | 5 | 7 | 9) => d as u32,
                    d => {
                        return Err(ApiError::bad_request(format!(
                            "depth: {d} (an odd depth from 1 to 9)"
                        )))
                    }
                })
            }
            _ => {}
        }
    }
    let text = position.ok_or_else(|| ApiError::bad_request("position is required"))?;
    let dice = dice.ok_or_else(|| ApiError::bad_request("dice is required"))?;
    let game = variant.unwrap_or(session);
    let named = text.split(':').count() == 3;
    let full = if named {
        text.clone()
    } else if game.is_tavli() {
        format!("{game}:{text}")
    } else {
        return Err(ApiError::bad_request(
            "name the game: a variant, or a position string with its prefix (plakoto:...)",
        ));
    };
    let pos = crate::tavli::parse_position_string(&full)
        .map_err(|e| ApiError::bad_request(format!("position: {e}")))?;
    if let Some(v) = variant {
        if pos.variant() != v {
            return Err(ApiError::bad_request(format!(
                "position: a {} position, but variant is {v}",
                pos.variant()
            )));
        }
    }
    if !pos.variant().is_tavli() {
        return Err(ApiError::bad_request(
            "position: a backgammon position (this route plays the Tavli games; see /v1/move)",
        ));
    }
    if pos.result().is_some() {
        return Err(ApiError::bad_request(
            "position: the game is over; nothing to play",
        ));
    }
    Ok(TavliParams {
        position: pos,
        dice,
        depth,
    })
}

/// Plays of a `/v1/tavli/move` answer valued at the deepest iteration (the rest keep the
/// value of the deepest iteration that valued them).
const TAVLI_RANKED: usize = 5;

async fn answer(app: &App, p: TavliParams) -> Response {
    let depth = p.depth.unwrap_or_else(|| app.shared.tavli_depth());
    let depth = depth.min(app.shared.server_config().max_request_depth.get());
    let started = std::time::Instant::now();
    let request = crate::protocol::tavli::TavliRequest {
        position: p.position,
        dice: p.dice,
    };
    let plays = match app
        .shared
        .tavli_plays(request, Some(depth), TAVLI_RANKED)
        .await
    {
        Ok(plays) => plays,
        Err(e) => {
            return ApiError {
                status: StatusCode::SERVICE_UNAVAILABLE,
                message: e,
            }
            .into_response()
        }
    };
    let mut body = crate::players::tavli::hint_json(&p.position, p.dice, &plays);
    body["ms"] = serde_json::json!(r6(started.elapsed().as_secs_f64() * 1000.0));
    json_response(StatusCode::OK, body.to_string())
}

/// `GET /v1/tavli/move`: parameters in the query string.
pub async fn get(State(app): State<App>, uri: Uri) -> Response {
    let QueryString(pairs) = match QueryString::<Vec<(String, String)>>::try_from_uri(&uri) {
        Ok(q) => q,
        Err(e) => return ApiError::bad_request(format!("bad query string: {e}")).into_response(),
    };
    let session = app.config.server.variant;
    match read(
        session,
        pairs
            .iter()
            .map(|(k, v)| (k.as_str(), Raw::Text(v.as_str()))),
    ) {
        Ok(p) => answer(&app, p).await,
        Err(e) => e.into_response(),
    }
}

/// `POST /v1/tavli/move`: parameters in a JSON object.
pub async fn post(State(app): State<App>, body: Result<Bytes, BytesRejection>) -> Response {
    let map = match read_body(body).and_then(|b| json_object(&b)) {
        Ok(m) => m,
        Err(e) => return e.into_response(),
    };
    let session = app.config.server.variant;
    match read(session, map.iter().map(|(k, v)| (k.as_str(), Raw::Json(v)))) {
        Ok(p) => answer(&app, p).await,
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn q(session: Variant, pairs: &[(&str, &str)]) -> Result<TavliParams, ApiError> {
        read(session, pairs.iter().map(|(k, v)| (*k, Raw::Text(v))))
    }

    #[test]
    fn the_game_comes_from_the_variant_the_prefix_or_the_server() {
        let a = q(
            Variant::Backgammon,
            &[
                ("variant", "plakoto"),
                ("position", "24-15:24-15"),
                ("dice", "65"),
            ],
        )
        .unwrap();
        let b = q(
            Variant::Backgammon,
            &[("position", "plakoto:24-15:24-15"), ("dice", "6,5")],
        )
        .unwrap();
        let c = q(
            Variant::Plakoto,
            &[("position", "24-15:24-15"), ("dice", "6-5")],
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(b, c);
        for bad in [
            vec![("position", "24-15:24-15"), ("dice", "65")],
            vec![
                ("variant", "fevga"),
                ("position", "plakoto:24-15:24-15"),
                ("dice", "65"),
            ],
            vec![
                ("variant", "backgammon"),
                ("position", "24-15:24-15"),
                ("dice", "65"),
            ],
            vec![
                ("position", "plakoto:24-15:24-15"),
                ("dice", "65"),
                ("depth", "4"),
            ],
            vec![("position", "plakoto:24-15:24-15")],
            vec![
                ("position", "plakoto:24-15:24-15"),
                ("dice", "65"),
                ("cube", "1"),
            ],
            vec![("position", "plakoto:\u{e9}:24-15"), ("dice", "65")],
        ] {
            let e = q(Variant::Backgammon, &bad).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST, "{bad:?}");
        }
    }
}
