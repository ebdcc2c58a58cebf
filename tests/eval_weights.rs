//! The weights file format: round trip, and every kind of bad file refused with its
//! own error.
#![allow(clippy::unwrap_used)]
use stargammon::eval::encoding::{Encoding, SparseInput, INPUTS};
use stargammon::eval::inputs_v2::INPUTS_V2;
use stargammon::eval::net::Mlp;
use stargammon::eval::neural::DEFAULT_WEIGHTS;
use stargammon::eval::weights::{fnv1a64, FORMAT_VERSION, MAGIC};
use stargammon::eval::{NetSet, NeuralEvaluator, WeightsError};
use stargammon::game::Rng;

fn small_set() -> NetSet {
    let mut rng = Rng::seeded(3);
    NetSet {
        encoding: stargammon::eval::encoding::Encoding::V1,
        contact: Mlp::random(INPUTS, 6, 0.5, &mut rng),
        race: Mlp::random(INPUTS, 4, 0.5, &mut rng),
        games: 1234,
    }
}

/// Rewrites the checksum after editing the body, so the edit itself is what is tested.
fn reseal(bytes: &mut [u8]) {
    let n = bytes.len() - 8;
    let c = fnv1a64(&bytes[..n]);
    bytes[n..].copy_from_slice(&c.to_le_bytes());
}

#[test]
fn round_trip_is_exact() {
    let set = small_set();
    let bytes = set.to_bytes();
    assert_eq!(&bytes[..8], &MAGIC);
    let back = NetSet::from_bytes(&bytes).unwrap();
    assert_eq!(back, set);
    assert_eq!(back.games, 1234);
}

#[test]
fn save_and_load_through_a_file() {
    let dir = std::env::temp_dir().join(format!("sg-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nets.sgnet");
    small_set().save(&path).unwrap();
    assert_eq!(NetSet::load(&path).unwrap(), small_set());
    let missing = NetSet::load(&dir.join("missing.sgnet"));
    assert!(matches!(missing, Err(WeightsError::Io(_))));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wrong_magic_is_refused() {
    let mut b = small_set().to_bytes();
    b[0] = b'X';
    assert_eq!(NetSet::from_bytes(&b), Err(WeightsError::BadMagic));
    assert_eq!(
        NetSet::from_bytes(b"not a weights file at all"),
        Err(WeightsError::BadMagic)
    );
}

#[test]
fn every_truncation_is_refused() {
    let b = small_set().to_bytes();
    for cut in [
        0,
        3,
        8,
        12,
        20,
        40,
        60,
        100,
        b.len() / 2,
        b.len() - 9,
        b.len() - 1,
    ] {
        let r = NetSet::from_bytes(&b[..cut]);
        assert!(
            matches!(
                r,
                Err(WeightsError::Truncated { .. }) | Err(WeightsError::BadMagic)
            ),
            "cut at {cut}: {r:?}"
        );
        if cut >= 8 {
            assert!(
                matches!(r, Err(WeightsError::Truncated { .. })),
                "cut {cut}"
            );
        }
    }
}

#[test]
fn a_flipped_bit_fails_the_checksum() {
    let b = small_set().to_bytes();
    for at in [60, 61, 500, b.len() - 20, b.len() - 3] {
        let mut c = b.clone();
        c[at] ^= 0x10;
        let r = NetSet::from_bytes(&c);
        assert!(
            matches!(r, Err(WeightsError::ChecksumMismatch { .. })),
            "byte {at}: {r:?}"
        );
    }
}

#[test]
fn other_version_or_encoding_is_refused() {
    let mut b = small_set().to_bytes();
    b[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    reseal(&mut b);
    assert_eq!(
        NetSet::from_bytes(&b),
        Err(WeightsError::UnsupportedVersion(FORMAT_VERSION + 1))
    );
    for unknown in [0u32, 4, 99] {
        let mut b = small_set().to_bytes();
        b[12..16].copy_from_slice(&unknown.to_le_bytes());
        reseal(&mut b);
        assert_eq!(
            NetSet::from_bytes(&b),
            Err(WeightsError::UnknownEncoding(unknown))
        );
    }
}

#[test]
fn wrong_layer_sizes_are_refused() {
    // The contact net's input count sits after magic, version, encoding, games, count
    // and its phase tag: 8 + 4 + 4 + 8 + 4 + 4 = 32.
    let mut b = small_set().to_bytes();
    b[32..36].copy_from_slice(&((INPUTS + 1) as u32).to_le_bytes());
    reseal(&mut b);
    assert!(matches!(
        NetSet::from_bytes(&b),
        Err(WeightsError::BadShape(_))
    ));
    let mut b = small_set().to_bytes();
    b[28..32].copy_from_slice(&7u32.to_le_bytes());
    reseal(&mut b);
    assert!(matches!(
        NetSet::from_bytes(&b),
        Err(WeightsError::BadShape(_))
    ));
}

#[test]
fn trailing_bytes_are_refused() {
    let mut b = small_set().to_bytes();
    b.push(0);
    assert_eq!(NetSet::from_bytes(&b), Err(WeightsError::TrailingBytes(1)));
}

#[test]
fn errors_read_clearly() {
    assert_eq!(
        WeightsError::UnknownEncoding(4).to_string(),
        "weights file uses input encoding 4, which this program does not know \
         (it reads encodings 1, 2, 3); a newer stargammon may read it"
    );
}

#[test]
fn the_embedded_default_nets_load() {
    let e = NeuralEvaluator::default_nets().unwrap();
    let nets = e.nets();
    assert_eq!(nets.contact.inputs(), nets.encoding.contact_inputs());
    assert_eq!(nets.race.inputs(), INPUTS);
    assert!(nets.contact.hidden() >= 1);
    // The embedded bytes are a file of the current format that rewrites bit for bit.
    assert_eq!(nets.to_bytes(), DEFAULT_WEIGHTS);
}

/// The TD-trained nets (encoding 1), kept under their own name.
fn td_nets_bytes() -> Vec<u8> {
    std::fs::read("weights/td.sgnet").unwrap()
}

#[test]
fn averaging_nets() {
    let a = small_set();
    let mut rng = Rng::seeded(8);
    let b = Mlp::random(INPUTS, 6, 0.5, &mut rng);
    let same = Mlp::average(&[&a.contact, &a.contact]).unwrap();
    let x = stargammon::eval::encoding::SparseInput::default();
    assert_eq!(same.forward(&x), a.contact.forward(&x));
    let mean = Mlp::average(&[&a.contact, &b]).unwrap();
    let mut back = mean.clone();
    // mean + (mean - b) = a, weight by weight (up to rounding).
    back.add_difference(&mean, &b);
    let (p, q) = (back.forward(&x), a.contact.forward(&x));
    for k in 0..5 {
        assert!((p[k] - q[k]).abs() < 1e-5);
    }
    assert!(
        Mlp::average(&[&a.contact, &a.race]).is_none(),
        "sizes differ"
    );
    assert!(Mlp::average(&[]).is_none());
}

fn small_v2_set() -> NetSet {
    let mut rng = Rng::seeded(5);
    NetSet {
        encoding: Encoding::V2,
        contact: Mlp::random(INPUTS_V2, 6, 0.5, &mut rng),
        race: Mlp::random(INPUTS, 4, 0.5, &mut rng),
        games: 77,
    }
}

#[test]
fn an_encoding_2_file_round_trips_with_its_id() {
    let set = small_v2_set();
    let bytes = set.to_bytes();
    assert_eq!(&bytes[12..16], &2u32.to_le_bytes());
    let back = NetSet::from_bytes(&bytes).unwrap();
    assert_eq!(back.encoding, Encoding::V2);
    assert_eq!(back, set);
    // Encoding 1 files say 1.
    assert_eq!(&small_set().to_bytes()[12..16], &1u32.to_le_bytes());
}

#[test]
fn input_counts_must_match_the_files_encoding() {
    // An encoding 1 file whose header is relabelled 2: its contact net has 218 inputs.
    let mut b = small_set().to_bytes();
    b[12..16].copy_from_slice(&2u32.to_le_bytes());
    reseal(&mut b);
    let e = NetSet::from_bytes(&b).unwrap_err();
    assert_eq!(
        e,
        WeightsError::BadShape(format!(
            "the contact net has {INPUTS} inputs, encoding 2 gives it {INPUTS_V2}"
        ))
    );
    // And the other way: an encoding 2 file relabelled 1.
    let mut b = small_v2_set().to_bytes();
    b[12..16].copy_from_slice(&1u32.to_le_bytes());
    reseal(&mut b);
    assert_eq!(
        NetSet::from_bytes(&b).unwrap_err(),
        WeightsError::BadShape(format!(
            "the contact net has {INPUTS_V2} inputs, encoding 1 gives it {INPUTS}"
        ))
    );
    // The race net reads encoding 1 in both.
    let mut rng = Rng::seeded(6);
    let mut set = small_v2_set();
    set.race = Mlp::random(INPUTS_V2, 4, 0.5, &mut rng);
    assert_eq!(
        NetSet::from_bytes(&set.to_bytes()).unwrap_err(),
        WeightsError::BadShape(format!(
            "the race net has {INPUTS_V2} inputs, encoding 2 gives it {INPUTS}"
        ))
    );
}

#[test]
fn the_td_file_is_encoding_1_and_rewrites_bit_for_bit() {
    let bytes = td_nets_bytes();
    let set = NetSet::from_bytes(&bytes).unwrap();
    assert_eq!(set.encoding, Encoding::V1);
    assert_eq!(set.contact.inputs(), INPUTS);
    assert_eq!(set.to_bytes(), bytes);
}

#[test]
fn the_evaluator_feeds_each_net_its_encoding() {
    use stargammon::eval::encoding::SparseInput;
    use stargammon::eval::inputs_v2::encode_v2;
    use stargammon::eval::Evaluator;
    use stargammon::game::Phase;
    let set = small_v2_set();
    let ev = NeuralEvaluator::new(set.clone(), "v2");
    let mut x = SparseInput::default();
    let (mut contact, mut race) = (0, 0);
    for (pos, _) in stargammon::bench::random_game_positions(9, 3) {
        if stargammon::eval::neural::exact(&pos).is_some() {
            continue;
        }
        let raw = match pos.phase() {
            Phase::Contact => {
                contact += 1;
                encode_v2(&pos, &mut x);
                set.contact.forward(&x)
            }
            Phase::Race => {
                race += 1;
                stargammon::eval::encoding::encode(&pos, &mut x);
                set.race.forward(&x)
            }
        };
        let want = stargammon::eval::net::consistent(raw, pos.off(), pos.opp_off());
        assert_eq!(ev.evaluate(&pos), want, "{pos:?}");
    }
    assert!(contact > 50 && race > 5, "{contact} contact, {race} race");
}

#[test]
fn widened_nets_evaluate_as_before_and_refuse_to_shrink() {
    let shipped = NetSet::from_bytes(&td_nets_bytes()).unwrap();
    let wide = shipped
        .widened(Encoding::V2, 160, shipped.race.hidden(), 7)
        .unwrap();
    assert_eq!(wide.encoding, Encoding::V2);
    assert_eq!(
        (wide.contact.inputs(), wide.contact.hidden()),
        (INPUTS_V2, 160)
    );
    assert_eq!(wide.race, shipped.race);
    // Every contact position of real games gets the same evaluation through encoding 2
    // and the wider net as through encoding 1 and the shipped one.
    let (mut x1, mut x2) = (SparseInput::default(), SparseInput::default());
    let mut contact = 0;
    for (pos, _) in stargammon::bench::pubeval_game_positions(5, 40) {
        if pos.phase() != stargammon::game::Phase::Contact {
            continue;
        }
        contact += 1;
        Encoding::V1.encode_for(&pos, &mut x1);
        Encoding::V2.encode_for(&pos, &mut x2);
        let (a, b) = (shipped.contact.forward(&x1), wide.contact.forward(&x2));
        for k in 0..5 {
            assert!((a[k] - b[k]).abs() < 1e-5, "{pos:?}: {a:?} vs {b:?}");
        }
    }
    assert!(contact > 200, "{contact}");
    // Same encoding, same size: the same nets.
    let race_hidden = shipped.race.hidden();
    assert_eq!(
        shipped.widened(Encoding::V1, 128, race_hidden, 1).unwrap(),
        shipped
    );
    // Smaller, or from encoding 2 to 1: refused.
    assert!(shipped.widened(Encoding::V1, 64, race_hidden, 1).is_err());
    assert!(shipped
        .widened(Encoding::V1, 128, race_hidden - 1, 1)
        .is_err());
    assert!(wide.widened(Encoding::V1, 160, race_hidden, 1).is_err());
    // A wider race net evaluates every race position as before.
    let race_wide = shipped
        .widened(Encoding::V1, 128, 2 * race_hidden, 3)
        .unwrap();
    assert_eq!(race_wide.race.hidden(), 2 * race_hidden);
    assert_eq!(race_wide.contact, shipped.contact);
    let mut races = 0;
    for (pos, _) in stargammon::bench::pubeval_game_positions(5, 40) {
        if pos.phase() != stargammon::game::Phase::Race {
            continue;
        }
        races += 1;
        Encoding::V1.encode_for(&pos, &mut x1);
        let (a, b) = (shipped.race.forward(&x1), race_wide.race.forward(&x1));
        for k in 0..5 {
            assert!((a[k] - b[k]).abs() < 1e-5, "{pos:?}: {a:?} vs {b:?}");
        }
    }
    assert!(races > 20, "{races}");
}
