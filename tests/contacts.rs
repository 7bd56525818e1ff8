//! Leg detection and foot contacts on the real characters (probe, to be replaced).

use std::path::Path;

use stridescope::anim::contacts::{
    contacts_to_markers, detect_contacts, detect_legs, leg_length, ContactSettings,
};
use stridescope::asset::{self, Model};

fn load(rel: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/assets")
        .join(rel);
    asset::load(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn demo() -> Model {
    asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).expect("demo")
}

#[test]
fn probe() {
    let models = [
        ("demo", demo()),
        ("Fox", load("Fox/Fox.glb")),
        ("Robot", load("Robot/robot.glb")),
        ("CesiumMan", load("CesiumMan/CesiumMan.glb")),
        ("RiggedFigure", load("RiggedFigure/RiggedFigure.glb")),
        ("RiggedSimple", load("RiggedSimple/RiggedSimple.glb")),
        ("SimpleSkin", load("SimpleSkin/SimpleSkin.gltf")),
    ];
    for (name, m) in &models {
        let sk = &m.skeleton;
        match detect_legs(sk) {
            Err(e) => println!("{name}: ERR {e}"),
            Ok(legs) => {
                for l in &legs {
                    let n = |j: usize| sk.names()[j].clone();
                    println!(
                        "{name}: {} = {} / {} / {} / {:?}  len {}",
                        l.name,
                        n(l.thigh),
                        n(l.calf),
                        n(l.foot),
                        l.toe.map(n),
                        leg_length(sk, l)
                    );
                }
                for clip in &m.clips {
                    let c = detect_contacts(sk, clip, &legs, &ContactSettings::default()).unwrap();
                    println!("  clip {} ({} s)", clip.name(), clip.duration_secs());
                    for f in &c {
                        println!(
                            "    {}: {:?} frac {:.3}",
                            f.leg,
                            f.intervals,
                            f.contact_fraction(clip.duration_secs())
                        );
                    }
                    if !clip.markers().is_empty() {
                        for mk in contacts_to_markers(&c) {
                            let file = clip.markers().iter().find(|x| x.name == mk.name);
                            println!(
                                "      {} {:.4} file {:?}",
                                mk.name,
                                mk.time_secs,
                                file.map(|f| f.time_secs)
                            );
                        }
                    }
                }
            }
        }
    }
}

// ---- draft of the real tests (appended while the build runs) ----

use glam::{Quat, Vec3};
use stridescope::anim::contacts::{legs_from_override, FootContacts, LegChain, LegOverride};
use stridescope::anim::{
    AnimError, Clip, Interpolation, JointTracks, Skeleton, SyncMarker, Track, Transform,
};

fn names_of(sk: &Skeleton, leg: &LegChain) -> (String, String, String, Option<String>) {
    let n = |j: usize| sk.names()[j].clone();
    (n(leg.thigh), n(leg.calf), n(leg.foot), leg.toe.map(n))
}

fn expect_leg(sk: &Skeleton, leg: &LegChain, name: &str, joints: [&str; 3], toe: Option<&str>) {
    assert_eq!(leg.name, name);
    assert_eq!(
        names_of(sk, leg),
        (
            joints[0].to_string(),
            joints[1].to_string(),
            joints[2].to_string(),
            toe.map(str::to_string)
        ),
        "leg '{name}'"
    );
}

/// Distance between two times on a cycle of length `d`.
fn cyclic(a: f32, b: f32, d: f32) -> f32 {
    let x = (a - b).rem_euclid(d);
    x.min(d - x)
}

/// A biped built in code: `hips` at 1 m, thighs 0.1 m to each side, 0.5 m thigh and
/// shin, a 0.15 m toe forward. `names` = [hips, thigh, calf, foot, toe] with `{s}` for
/// the side spelling (`side.0` left, `side.1` right).
fn biped(names: [&str; 5], side: (&str, &str)) -> Skeleton {
    let mut n = vec![names[0].to_string()];
    let mut parents = vec![None];
    let t = |x: f32, y: f32, z: f32| Transform {
        translation: Vec3::new(x, y, z),
        ..Transform::default()
    };
    let mut rest = vec![t(0.0, 1.0, 0.0)];
    for (s, x) in [(side.0, 0.1), (side.1, -0.1)] {
        let base = n.len();
        for (k, part) in names[1..].iter().enumerate() {
            n.push(part.replace("{s}", s));
            parents.push(Some(if k == 0 { 0 } else { base + k - 1 }));
        }
        rest.extend([
            t(x, 0.0, 0.0),
            t(0.0, -0.5, 0.0),
            t(0.0, -0.5, 0.0),
            t(0.0, -0.05, 0.15),
        ]);
    }
    Skeleton::new(n, parents, rest).unwrap()
}

#[test]
fn legs_by_common_names() {
    let cases: [([&str; 5], (&str, &str)); 8] = [
        (
            [
                "mixamorig:Hips",
                "mixamorig:{s}UpLeg",
                "mixamorig:{s}Leg",
                "mixamorig:{s}Foot",
                "mixamorig:{s}ToeBase",
            ],
            ("Left", "Right"),
        ),
        (
            ["pelvis", "thigh_{s}", "calf_{s}", "foot_{s}", "ball_{s}"],
            ("l", "r"),
        ),
        (
            ["DEF-spine", "DEF-thigh.{s}", "DEF-shin.{s}", "DEF-foot.{s}", "DEF-toe.{s}"],
            ("L", "R"),
        ),
        (
            ["Hips", "{s}UpperLeg", "{s}LowerLeg", "{s}Foot", "{s}Toes"],
            ("Left", "Right"),
        ),
        (
            [
                "J_Bip_C_Hips",
                "J_Bip_{s}_UpperLeg",
                "J_Bip_{s}_LowerLeg",
                "J_Bip_{s}_Foot",
                "J_Bip_{s}_ToeBase",
            ],
            ("L", "R"),
        ),
        (
            ["Hips", "UpperLeg.{s}", "LowerLeg.{s}", "Foot.{s}", "Toe.{s}"],
            ("L", "R"),
        ),
        (
            [
                "Armature_pelvis",
                "Armature_THIGH_{s}",
                "Armature_Calf_{s}",
                "Armature_Foot_{s}",
                "Armature_toe_{s}",
            ],
            ("L", "R"),
        ),
        // Side as a camel-case suffix (RobotExpressive-style exports).
        (["Hips", "UpperLeg{s}", "LowerLeg{s}", "Foot{s}", "Toe{s}"], ("L", "R")),
    ];
    for (names, side) in cases {
        let sk = biped(names, side);
        let legs = detect_legs(&sk).unwrap_or_else(|e| panic!("{names:?}: {e}"));
        assert_eq!(legs.len(), 2, "{names:?}: {legs:?}");
        for (leg, s, label) in [(&legs[0], side.0, "left"), (&legs[1], side.1, "right")] {
            let j = |k: usize| names[k].replace("{s}", s);
            expect_leg(
                &sk,
                leg,
                label,
                [&j(1), &j(2), &j(3)],
                Some(&j(4)),
            );
        }
    }
}

/// Names alone are not enough: the chain must run thigh -> calf -> foot in the
/// hierarchy, so a same-named mesh node elsewhere is not taken.
#[test]
fn named_legs_need_the_hierarchy() {
    let mut sk = biped(["pelvis", "thigh_{s}", "calf_{s}", "foot_{s}", "ball_{s}"], ("l", "r"));
    // A second `calf_l` that is a root (not below the thigh): ignored.
    let mut names = sk.names().to_vec();
    let mut parents = sk.parents().to_vec();
    let mut rest = sk.rest_pose().to_vec();
    names.push("calf_l".into());
    parents.push(None);
    rest.push(Transform::default());
    sk = Skeleton::new(names, parents, rest).unwrap();
    let legs = detect_legs(&sk).unwrap();
    assert_eq!(sk.names()[legs[0].calf], "calf_l");
    assert_eq!(legs[0].calf, 2, "the calf below thigh_l, not the root at 9");
}

#[test]
fn override_by_joint_names() {
    let sk = biped(["pelvis", "a_{s}", "b_{s}", "c_{s}", "d_{s}"], ("1", "2"));
    // Unrecognised names: detection by shape still finds the pair...
    let shaped = detect_legs(&sk).unwrap();
    assert_eq!(shaped.len(), 2);
    expect_leg(&sk, &shaped[0], "left", ["a_1", "b_1", "c_1"], Some("d_1"));
    expect_leg(&sk, &shaped[1], "right", ["a_2", "b_2", "c_2"], Some("d_2"));
    // ...and the user may choose instead; the order given is kept.
    let legs = legs_from_override(
        &sk,
        &[
            LegOverride {
                thigh: "a_2",
                calf: "b_2",
                foot: "c_2",
            },
            LegOverride {
                thigh: "a_1",
                calf: "b_1",
                foot: "c_1",
            },
        ],
    )
    .unwrap();
    expect_leg(&sk, &legs[0], "right", ["a_2", "b_2", "c_2"], Some("d_2"));
    expect_leg(&sk, &legs[1], "left", ["a_1", "b_1", "c_1"], Some("d_1"));
    let err = legs_from_override(
        &sk,
        &[LegOverride {
            thigh: "a_1",
            calf: "knee_1",
            foot: "c_1",
        }],
    )
    .unwrap_err();
    assert!(err.contains("'knee_1'") && err.contains("calf"), "{err}");
    let err = legs_from_override(
        &sk,
        &[LegOverride {
            thigh: "a_1",
            calf: "a_1",
            foot: "c_1",
        }],
    )
    .unwrap_err();
    assert!(err.contains("three different joints"), "{err}");
}

/// One leg: hips (root, 1 m up) -> thigh -> calf -> foot, 0.5 m segments (leg length
/// exactly 1), the foot on the ground at y = 0 in the rest pose.
fn one_leg(scale: f32) -> Skeleton {
    let t = |y: f32| Transform {
        translation: Vec3::new(0.0, y * scale, 0.0),
        ..Transform::default()
    };
    Skeleton::new(
        ["hips", "thigh_l", "calf_l", "foot_l"]
            .map(String::from)
            .to_vec(),
        vec![None, Some(0), Some(1), Some(2)],
        vec![t(1.0), t(0.0), t(-0.5), t(-0.5)],
    )
    .unwrap()
}

fn hips_clip(keys: &[(f32, f32)]) -> Clip {
    let mut tracks = JointTracks::new(0);
    tracks.translation = Some(
        Track::new(
            Interpolation::Linear,
            keys.iter().map(|k| k.0).collect(),
            keys.iter().map(|k| Vec3::new(0.0, k.1, 0.0)).collect(),
            "hips",
        )
        .unwrap(),
    );
    Clip::new("lift".into(), vec![tracks], vec![], 4).unwrap()
}

/// Hand-computed: the hips hold still for 0.5 s, rise 0.5 m and come back by 1 s (foot
/// speed 2 m/s = 8x the 0.25 leg/s threshold). At 120 samples/s (dt = 1/120 s) the
/// central difference at t = 0.5 s already sees the rise: speed 1 m/s, ratio 4, and the
/// ratio is 0 one sample earlier, so the crossing of 1 is a quarter of the way:
/// up = 0.5 - dt + dt/4. Landing: ratio 4 at t = 0 (the sample before is still
/// descending), 0 at dt: down = 3/4 dt.
#[test]
fn contact_times_hand_computed() {
    let sk = one_leg(1.0);
    let legs = detect_legs(&sk).unwrap();
    assert_eq!(legs.len(), 1);
    assert!((leg_length(&sk, &legs[0]) - 1.0).abs() < 1e-6);
    let clip = hips_clip(&[(0.0, 1.0), (0.5, 1.0), (0.75, 1.5), (1.0, 1.0)]);
    let c = detect_contacts(&sk, &clip, &legs, &ContactSettings::default()).unwrap();
    let dt = 1.0 / 120.0;
    assert_eq!(c[0].leg, "left");
    assert_eq!(c[0].intervals.len(), 1, "{c:?}");
    let (down, up) = c[0].intervals[0];
    assert!((down - 0.75 * dt).abs() < 1e-4, "down {down}");
    assert!((up - (0.5 - 0.75 * dt)).abs() < 1e-4, "up {up}");
    let m = contacts_to_markers(&c);
    let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["left_foot_down", "left_foot_up"]);

    // Shifted by 0.25 s the contact spans the loop point: the interval wraps.
    let clip = hips_clip(&[(0.0, 1.0), (0.25, 1.0), (0.5, 1.5), (0.75, 1.0), (1.0, 1.0)]);
    let c = detect_contacts(&sk, &clip, &legs, &ContactSettings::default()).unwrap();
    let (down, up) = c[0].intervals[0];
    assert!((down - (0.75 + 0.75 * dt)).abs() < 1e-4, "down {down}");
    assert!((up - (0.25 - 0.75 * dt)).abs() < 1e-4, "up {up}");
    assert!(down > up);
    let frac = c[0].contact_fraction(1.0);
    assert!((frac - (0.5 - 1.5 * dt)).abs() < 1e-4, "{frac}");
    let m = contacts_to_markers(&c);
    let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["left_foot_up", "left_foot_down"], "sorted by time");

    // A foot that never lifts is down all cycle and has no events.
    let still = hips_clip(&[(0.0, 1.0), (1.0, 1.0)]);
    let c = detect_contacts(&sk, &still, &legs, &ContactSettings::default()).unwrap();
    assert_eq!(c[0].intervals, vec![(0.0, 0.0)]);
    assert_eq!(c[0].contact_fraction(1.0), 1.0);
    assert!(contacts_to_markers(&c).is_empty());

    // One that never comes down (always fast) has no contacts.
    let bounce = hips_clip(&[(0.0, 1.0), (0.5, 2.0), (1.0, 1.0)]);
    let c = detect_contacts(&sk, &bounce, &legs, &ContactSettings::default()).unwrap();
    assert_eq!(c[0].intervals, Vec::<(f32, f32)>::new());
}

/// `skeleton` and `clip` with every translation (rest pose and keys) times `k`.
fn scaled(skeleton: &Skeleton, clip: &Clip, k: f32) -> (Skeleton, Clip) {
    let rest = skeleton
        .rest_pose()
        .iter()
        .map(|t| Transform {
            translation: t.translation * k,
            ..*t
        })
        .collect();
    let sk = Skeleton::new(skeleton.names().to_vec(), skeleton.parents().to_vec(), rest).unwrap();
    let tracks = clip
        .tracks()
        .iter()
        .map(|t| {
            let mut s = t.clone();
            s.translation = t.translation.as_ref().map(|tr| {
                Track::new(
                    tr.interpolation(),
                    tr.times().to_vec(),
                    tr.values().iter().map(|v| *v * k).collect(),
                    "scaled",
                )
                .unwrap()
            });
            s
        })
        .collect();
    let clip = Clip::new(
        clip.name().to_string(),
        tracks,
        clip.markers().to_vec(),
        sk.joint_count(),
    )
    .unwrap();
    (sk, clip)
}

#[test]
fn errors() {
    let sk = one_leg(1.0);
    let legs = detect_legs(&sk).unwrap();
    let clip = hips_clip(&[(0.0, 1.0), (0.5, 1.0), (0.75, 1.5), (1.0, 1.0)]);
    let s = ContactSettings::default();
    let mut bad = legs.clone();
    bad[0].foot = 4;
    assert_eq!(
        detect_contacts(&sk, &clip, &bad, &s).unwrap_err(),
        AnimError::JointOutOfRange {
            what: "leg 'left' foot".into(),
            joint: 4,
            joint_count: 4
        }
    );
    let mut bad = legs.clone();
    bad[0].toe = Some(17);
    assert!(matches!(
        detect_contacts(&sk, &clip, &bad, &s),
        Err(AnimError::JointOutOfRange { joint: 17, .. })
    ));
    // A clip of single keys lasts 0 s: no cycle to look at.
    let zero = hips_clip(&[(0.0, 1.0)]);
    assert_eq!(zero.duration_secs(), 0.0);
    let e = detect_contacts(&sk, &zero, &legs, &s).unwrap_err();
    assert!(
        matches!(&e, AnimError::OutOfRange { detail, .. } if detail.contains("duration is 0 s")),
        "{e}"
    );
    // Settings must be positive and finite.
    for bad in [
        ContactSettings {
            height_fraction: 0.0,
            ..s
        },
        ContactSettings {
            vertical_speed_fraction: -1.0,
            ..s
        },
        ContactSettings {
            samples_per_sec: f32::NAN,
            ..s
        },
        ContactSettings {
            min_contact_secs: -0.1,
            ..s
        },
        ContactSettings {
            samples_per_sec: 1e9,
            ..s
        },
    ] {
        assert!(detect_contacts(&sk, &clip, &legs, &bad).is_err(), "{bad:?}");
    }
    // A leg of zero rest length has no scale for the thresholds.
    let mut bad = legs.clone();
    bad[0].calf = bad[0].thigh;
    bad[0].foot = bad[0].thigh;
    assert!(matches!(
        detect_contacts(&sk, &clip, &bad, &s),
        Err(AnimError::OutOfRange { .. })
    ));
    // No legs: nothing to report.
    assert_eq!(detect_contacts(&sk, &clip, &[], &s).unwrap(), Vec::<FootContacts>::new());
}
