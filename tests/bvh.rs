//! BVH import (issue 20): small hand-written files with positions computed by hand (channel
//! order, position channels replacing OFFSET, End Sites, wrapped values, CRLF/BOM/tabs,
//! frame-time snapping, units detection and override), every malformed case with the file
//! name and the right line in its error, seeded mutations that never panic or
//! over-allocate, and all 482 Bandai clips of `../shared/mocap/bandai` at human speeds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "common/scratch.rs"]
mod scratch;
use scratch::Scratch;

use glam::{Mat4, Vec3};
use rayon::prelude::*;
use stridescope::anim::{LocalToModelJob, SamplingJob, Transform};
use stridescope::asset::{self, ImportError, LoadOptions, Model, SourceFormat, Units};

// ---------------------------------------------------------------------------------------
// Per-thread heap accounting (the Bandai test loads on other threads meanwhile)
// ---------------------------------------------------------------------------------------

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// Counts the live heap bytes each thread allocated, and their peak.
struct PerThread;

unsafe impl GlobalAlloc for PerThread {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let _ = LIVE.try_with(|l| {
                let now = l.get() + layout.size();
                l.set(now);
                let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
            });
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) };
        let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(layout.size())));
    }
}

#[global_allocator]
static ALLOCATOR: PerThread = PerThread;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

const TOL: f32 = 1e-5;

/// Writes `text` to a file `name` in a scratch folder and loads it.
fn load_opts(name: &str, text: &str, options: &LoadOptions) -> Result<Model, ImportError> {
    let dir = Scratch::new("bvh");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    asset::load_with(&path, options)
}

fn cm() -> LoadOptions {
    LoadOptions {
        units: Some(Units::Centimetres),
        allow_truncated: false,
        ..Default::default()
    }
}

fn load_cm(name: &str, text: &str) -> Model {
    load_opts(name, text, &cm()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Model-space joint positions at clip time `t`.
fn positions(model: &Model, t: f32) -> Vec<Vec3> {
    positions_mats(model, t)
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect()
}

fn pos(model: &Model, joint: &str, t: f32) -> Vec3 {
    let j = model
        .skeleton
        .find(joint)
        .unwrap_or_else(|| panic!("no joint '{joint}'"));
    positions(model, t)[j]
}

#[track_caller]
fn near(actual: Vec3, expected: [f32; 3], what: &str) {
    let e = Vec3::from(expected);
    assert!(
        actual.distance(e) <= TOL,
        "{what}: {actual:?}, expected {e:?}"
    );
}

/// The 3-joint chain: Hips (6 channels) -> Chest (ZXY rotations) -> End Site, two frames.
/// Lines are numbered as the malformed cases below count them.
const CHAIN: [&str; 20] = [
    "HIERARCHY",                                                                // 1
    "ROOT Hips",                                                                // 2
    "{",                                                                        // 3
    "\tOFFSET 0 0 0",                                                           // 4
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation", // 5
    "\tJOINT Chest",                                                            // 6
    "\t{",                                                                      // 7
    "\t\tOFFSET 10 0 0",                                                        // 8
    "\t\tCHANNELS 3 Zrotation Xrotation Yrotation",                             // 9
    "\t\tEnd Site",                                                             // 10
    "\t\t{",                                                                    // 11
    "\t\t\tOFFSET 0 0 20",                                                      // 12
    "\t\t}",                                                                    // 13
    "\t}",                                                                      // 14
    "}",                                                                        // 15
    "MOTION",                                                                   // 16
    "Frames: 2",                                                                // 17
    "Frame Time: 0.0333333",                                                    // 18
    "5 0 0 0 0 0 0 0 0",                                                        // 19
    "1 2 3 90 0 0 0 0 -90",                                                     // 20
];

fn chain() -> String {
    CHAIN.join("\n") + "\n"
}

/// `CHAIN` with line `n` (1-based) replaced.
fn chain_with(n: usize, line: &str) -> String {
    let mut lines = CHAIN.to_vec();
    lines[n - 1] = line;
    lines.join("\n") + "\n"
}

// ---------------------------------------------------------------------------------------
// Hand-computed files
// ---------------------------------------------------------------------------------------

#[test]
fn chain_joints_rest_pose_and_frames_match_hand_computation() {
    let m = load_cm("chain.bvh", &chain());
    assert_eq!(m.format, SourceFormat::Bvh);
    assert_eq!(m.source_units_m, 0.01);
    assert_eq!(m.source_up_axis, "+Y");
    assert!(
        m.source_units_reason.contains("given"),
        "{}",
        m.source_units_reason
    );
    // No mesh in the file: the generated bone shapes, one skin over every joint.
    assert_eq!(m.meshes.len(), 1);
    assert_eq!(m.meshes[0].name, asset::bone_shapes::BONE_MESH_NAME);
    assert_eq!(m.skins.len(), 1);
    let sk = &m.skeleton;
    assert_eq!(sk.names(), ["Hips", "Chest", "Chest_end"]);
    assert_eq!(sk.parents(), [None, Some(0), Some(1)]);
    let rest: Vec<Vec3> = sk.rest_pose().iter().map(|t| t.translation).collect();
    near(rest[0], [0.0, 0.0, 0.0], "Hips rest");
    near(rest[1], [0.1, 0.0, 0.0], "Chest rest");
    near(rest[2], [0.0, 0.0, 0.2], "Chest_end rest");
    assert!(sk
        .rest_pose()
        .iter()
        .all(|t| t.rotation == glam::Quat::IDENTITY));

    assert_eq!(m.clips.len(), 1);
    let clip = &m.clips[0];
    assert_eq!(clip.name(), "chain");
    assert_eq!(clip.frame_rate_hz(), Some(30.0));
    assert_eq!(clip.duration_secs(), (1.0f64 / 30.0) as f32);
    // Hips: translation and rotation; Chest: rotation (its End Site has no channels).
    assert_eq!(clip.channel_count(), 3);
    for t in clip.tracks() {
        let kinds = [
            t.translation.as_ref().map(|k| k.interpolation()),
            t.rotation.as_ref().map(|k| k.interpolation()),
        ];
        assert!(kinds
            .into_iter()
            .flatten()
            .all(|i| i == stridescope::anim::Interpolation::Linear));
    }

    // Frame 0: the root at its channels (5, 0, 0) cm, not its OFFSET; no rotation.
    near(pos(&m, "Hips", 0.0), [0.05, 0.0, 0.0], "Hips f0");
    near(pos(&m, "Chest", 0.0), [0.15, 0.0, 0.0], "Chest f0");
    near(pos(&m, "Chest_end", 0.0), [0.15, 0.0, 0.2], "end f0");
    // Frame 1: root at (1, 2, 3) cm turned Rz(90): the child's (10, 0, 0) cm becomes
    // (0, 10, 0); Chest's Ry(-90) turns the end's (0, 0, 20) into (-20, 0, 0), which Rz(90)
    // turns into (0, -20, 0).
    let t1 = clip.duration_secs();
    near(pos(&m, "Hips", t1), [0.01, 0.02, 0.03], "Hips f1");
    near(pos(&m, "Chest", t1), [0.01, 0.12, 0.03], "Chest f1");
    near(pos(&m, "Chest_end", t1), [0.01, -0.08, 0.03], "end f1");
    // Halfway: the root's translation is linear between its frames.
    near(
        pos(&m, "Hips", t1 / 2.0),
        [0.03, 0.01, 0.015],
        "Hips halfway",
    );
}

fn two_joint_rotation(order: &str, values: &str) -> String {
    format!(
        "HIERARCHY\nROOT A\n{{\nOFFSET 0 0 0\nCHANNELS 3 {order}\nJOINT B\n{{\nOFFSET 10 0 0\n\
         CHANNELS 3 {order}\nEnd Site\n{{\nOFFSET 0 0 0\n}}\n}}\n}}\nMOTION\nFrames: 1\n\
         Frame Time: 0.04\n{values}\n"
    )
}

#[test]
fn rotation_channels_compose_in_the_order_listed() {
    // Z=90, X=90: Rz * Rx; Rx leaves (10, 0, 0) alone, Rz turns it to (0, 10, 0).
    let zxy = load_cm(
        "zxy.bvh",
        &two_joint_rotation("Zrotation Xrotation Yrotation", "90 90 0 0 0 0"),
    );
    near(pos(&zxy, "B", 0.0), [0.0, 0.1, 0.0], "ZXY");
    // X=90, Z=90: Rx * Rz; Rz turns (10, 0, 0) to (0, 10, 0), Rx turns that to (0, 0, 10).
    let xyz = load_cm(
        "xyz.bvh",
        &two_joint_rotation("Xrotation Yrotation Zrotation", "90 0 90 0 0 0"),
    );
    near(pos(&xyz, "B", 0.0), [0.0, 0.0, 0.1], "XYZ");
    assert_eq!(zxy.clips[0].frame_rate_hz(), Some(25.0));
}

#[test]
fn position_channels_of_a_non_root_joint_replace_its_offset() {
    let text = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition Zposition\n\
                JOINT B\n{\nOFFSET 10 0 0\n\
                CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n\
                JOINT C\n{\nOFFSET 0 7 0\nCHANNELS 1 Yposition\nEnd Site\n{\nOFFSET 1 0 0\n}\n}\n}\n}\n\
                MOTION\nFrames: 2\nFrame Time: 0.0333333\n\
                0 0 0  0 5 0 0 0 0  3\n\
                0 0 0  10 0 0 0 0 0  7\n";
    let m = load_cm("replace.bvh", text);
    // The OFFSET stays the rest pose...
    near(
        m.skeleton.rest_pose()[1].translation,
        [0.1, 0.0, 0.0],
        "B rest",
    );
    // ...but the channels replace it: B at (0, 5, 0), not (10, 5, 0); C's one Yposition
    // replaces only y of its OFFSET (0, 7, 0).
    near(pos(&m, "B", 0.0), [0.0, 0.05, 0.0], "B f0");
    near(pos(&m, "C", 0.0), [0.0, 0.08, 0.0], "C f0");
    near(pos(&m, "C_end", 0.0), [0.01, 0.08, 0.0], "C_end f0");
    let t1 = m.clips[0].duration_secs();
    near(pos(&m, "B", t1), [0.1, 0.0, 0.0], "B f1");
    near(pos(&m, "C", t1), [0.1, 0.07, 0.0], "C f1");
}

#[test]
fn values_may_wrap_and_frames_may_share_a_line() {
    let canonical = load_cm("canonical.bvh", &chain());
    let mut lines = CHAIN[..18].to_vec();
    lines.extend(["5 0 0", "0 0 0", "0", "0 0 1 2 3 90 0 0 0", "", "0 -90"]);
    let wrapped = load_cm("wrapped.bvh", &(lines.join("\n") + "\n"));
    assert_eq!(wrapped.clips[0].tracks(), canonical.clips[0].tracks());
    let mut lines = CHAIN[..18].to_vec();
    lines.push("5 0 0 0 0 0 0 0 0 1 2 3 90 0 0 0 0 -90");
    let one_line = load_cm("one_line.bvh", &lines.join("\n"));
    assert_eq!(one_line.clips[0].tracks(), canonical.clips[0].tracks());
}

#[test]
fn crlf_bom_tabs_and_number_forms() {
    let text = "\u{feff}HIERARCHY\r\nROOT\tmixamorig:Hips\r\n{\r\n\tOFFSET\t.5\t-0.00000\t1e-06\r\n\
                \tCHANNELS 3 Xposition Yposition Zposition\r\n\tEnd Site\r\n\t{\r\n\t\tOFFSET 0 -.5 0\r\n\
                \t}\r\n}\r\nMOTION\r\nFrames:\t2\r\nFrame Time:\t0.0083333\r\n\
                1e-06\t.5\t-0.00000\r\n2.\t-1E2\t+3\r\n";
    let m = load_cm("crlf.bvh", text);
    assert_eq!(m.skeleton.names(), ["mixamorig:Hips", "mixamorig:Hips_end"]);
    near(
        m.skeleton.rest_pose()[0].translation,
        [0.005, 0.0, 1e-8],
        "rest",
    );
    near(
        m.skeleton.rest_pose()[1].translation,
        [0.0, -0.005, 0.0],
        "end rest",
    );
    near(pos(&m, "mixamorig:Hips", 0.0), [1e-8, 0.005, 0.0], "f0");
    let t1 = m.clips[0].duration_secs();
    near(pos(&m, "mixamorig:Hips", t1), [0.02, -1.0, 0.03], "f1");
    assert_eq!(m.clips[0].frame_rate_hz(), Some(120.0));
    assert_eq!(t1, (1.0f64 / 120.0) as f32);
}

#[test]
fn frame_times_snap_to_round_rates_only_when_close() {
    for (written, hz) in [
        ("0.0333333", 30.0),
        ("0.033333", 30.0),
        ("0.0083333", 120.0),
        ("0.04", 25.0),
        ("0.016667", 60.0),
        ("1", 1.0),
    ] {
        let m = load_cm(
            "rate.bvh",
            &two_joint_rotation("Zrotation Xrotation Yrotation", "0 0 0 0 0 0")
                .replace("0.04", written),
        );
        assert_eq!(m.clips[0].frame_rate_hz(), Some(hz), "{written}");
    }
    // 90.9 Hz is no round rate: kept as written.
    let m = load_cm(
        "rate.bvh",
        &two_joint_rotation("Zrotation Xrotation Yrotation", "0 0 0 0 0 0")
            .replace("0.04", "0.011"),
    );
    let hz = m.clips[0].frame_rate_hz().unwrap();
    assert!((hz - 1.0 / 0.011).abs() < 1e-9, "{hz}");
    // The timeline steps at that rate.
    assert_eq!(
        stridescope::stage::timeline::key_rate_hz(&m.clips[0]),
        hz,
        "timeline key rate"
    );
}

/// A 172 cm person (head end at 172, toe ends at 0 in frame 0) written with every length
/// multiplied by `k` (1: centimetres, 0.01: metres, 1/2.54: inches, 10: millimetres).
fn biped(k: f64) -> String {
    let l = |v: f64| format!("{}", v * k);
    let joint = |name: &str, o: [f64; 3], body: &str| {
        format!(
            "JOINT {name}\n{{\nOFFSET {} {} {}\nCHANNELS 3 Zrotation Xrotation Yrotation\n{body}}}\n",
            l(o[0]),
            l(o[1]),
            l(o[2])
        )
    };
    let end = |o: [f64; 3]| {
        format!(
            "End Site\n{{\nOFFSET {} {} {}\n}}\n",
            l(o[0]),
            l(o[1]),
            l(o[2])
        )
    };
    let leg = |side: &str, x: f64| {
        joint(
            &format!("{side}UpLeg"),
            [x, -5.0, 0.0],
            &joint(
                &format!("{side}Leg"),
                [0.0, -42.0, 0.0],
                &joint(
                    &format!("{side}Foot"),
                    [0.0, -40.0, 0.0],
                    &end([0.0, -3.0, 15.0]),
                ),
            ),
        )
    };
    let spine = joint(
        "Spine",
        [0.0, 20.0, 0.0],
        &joint(
            "Neck",
            [0.0, 35.0, 0.0],
            &joint("Head", [0.0, 15.0, 0.0], &end([0.0, 12.0, 0.0])),
        ),
    );
    let zeros = " 0 0 0".repeat(9);
    format!(
        "HIERARCHY\nROOT Hips\n{{\nOFFSET 0 0 0\n\
         CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n\
         {spine}{}{}}}\nMOTION\nFrames: 2\nFrame Time: 0.0333333\n\
         0 {} 0 0 0 0{zeros}\n0 {} {} 0 0 0{zeros}\n",
        leg("Left", 10.0),
        leg("Right", -10.0),
        l(90.0),
        l(90.0),
        l(10.0),
    )
}

#[test]
fn units_are_detected_from_the_skeleton_height() {
    let default = LoadOptions::default();
    let mut skeletons = Vec::new();
    for (k, units, metres_per_unit, height) in [
        (1.0, "centimetres", 0.01, "172 units"),
        (0.01, "metres", 1.0, "1.72 units"),
        (1.0 / 2.54, "inches", 0.0254, "67.7 units"),
        (10.0, "millimetres", 0.001, "1720 units"),
    ] {
        let m = load_opts(&format!("biped_{units}.bvh"), &biped(k), &default).unwrap();
        assert_eq!(m.source_units_m, metres_per_unit, "{units}");
        assert!(
            m.source_units_reason.starts_with(units) && m.source_units_reason.contains(height),
            "{units}: {}",
            m.source_units_reason
        );
        assert!(m.warnings.is_empty(), "{units}: {:?}", m.warnings);
        skeletons.push(m);
    }
    let reference = &skeletons[0];
    near(
        pos(reference, "Head_end", 0.0),
        [0.0, 1.72, 0.0],
        "head end",
    );
    near(
        pos(reference, "Hips", reference.clips[0].duration_secs()),
        [0.0, 0.9, 0.1],
        "hips f1",
    );
    for m in &skeletons[1..] {
        for (a, b) in m
            .skeleton
            .rest_pose()
            .iter()
            .zip(reference.skeleton.rest_pose())
        {
            near(
                a.translation,
                b.translation.to_array(),
                &m.source_units_reason,
            );
        }
        let t1 = m.clips[0].duration_secs();
        near(pos(m, "Hips", t1), [0.0, 0.9, 0.1], "hips f1");
    }
}

#[test]
fn units_can_be_given() {
    let given = |units| LoadOptions {
        units: Some(units),
        allow_truncated: false,
        ..Default::default()
    };
    let m = load_opts("biped_as_m.bvh", &biped(1.0), &given(Units::Metres)).unwrap();
    assert_eq!(m.source_units_m, 1.0);
    assert!(m
        .source_units_reason
        .contains("given by the caller; the skeleton is 172 units tall"));
    near(
        m.skeleton.rest_pose()[1].translation,
        [0.0, 20.0, 0.0],
        "Spine in 'metres'",
    );
    let m = load_opts(
        "biped_scale.bvh",
        &biped(1.0),
        &given(Units::MetresPerUnit(0.01)),
    )
    .unwrap();
    near(
        m.skeleton.rest_pose()[1].translation,
        [0.0, 0.2, 0.0],
        "Spine at 0.01",
    );
    for (text, units) in [
        ("cm", Units::Centimetres),
        ("mm", Units::Millimetres),
        ("m", Units::Metres),
        ("in", Units::Inches),
        ("ft", Units::Feet),
        ("Inches", Units::Inches),
        ("0.0254", Units::MetresPerUnit(0.0254)),
        ("1e-2", Units::MetresPerUnit(0.01)),
    ] {
        assert_eq!(text.parse::<Units>(), Ok(units), "{text}");
    }
    for bad in ["parsec", "-1", "0", "nan", "inf", ""] {
        assert!(Units::parse(bad).is_err(), "{bad}");
    }
    // glTF ignores the units, and says so.
    let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Fox/Fox.glb");
    let m = asset::load_with(&fox, &given(Units::Centimetres)).unwrap();
    assert_eq!((m.format, m.source_units_m), (SourceFormat::Gltf, 1.0));
    assert!(m.warnings.iter().any(|w| w.contains("ignored")));
}

#[test]
fn names_keep_colons_several_roots_and_duplicates_load() {
    let text = "HIERARCHY\nROOT a:Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition Zposition\n\
                JOINT a:Hips\n{\nOFFSET 0 10 0\nCHANNELS 1 Zrotation\nEnd Site\n{\nOFFSET 0 10 0\n}\n}\n}\n\
                ROOT Prop\n{\nOFFSET 50 0 0\nCHANNELS 1 Yrotation\n}\n\
                MOTION\nFrames: 1\nFrame Time: 0.0333333\n0 0 0 90 45\n";
    let m = load_cm("dupes.bvh", text);
    assert_eq!(
        m.skeleton.names(),
        ["a:Hips", "a:Hips", "a:Hips_end", "Prop"]
    );
    assert_eq!(m.skeleton.parents(), [None, Some(0), Some(1), None]);
    assert_eq!(m.skeleton.find("a:Hips"), Some(0));
    assert!(
        m.warnings.iter().any(|w| w.contains("'a:Hips' (2x)")),
        "{:?}",
        m.warnings
    );
    let p = positions(&m, 0.0);
    near(p[2], [-0.1, 0.1, 0.0], "end under the turned duplicate");
    near(p[3], [0.5, 0.0, 0.0], "second root");
}

#[test]
fn a_zero_pose_rest_is_kept_and_reported() {
    let mut text = String::from(
        "HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n",
    );
    for i in 0..5 {
        text +=
            &format!("JOINT J{i}\n{{\nOFFSET 10 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n");
    }
    text += &"}\n".repeat(6);
    text += "MOTION\nFrames: 1\nFrame Time: 0.0333333\n";
    text += &"0 ".repeat(18);
    let m = load_cm("zero.bvh", &text);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("rest pose: every bone lies along +X")),
        "{:?}",
        m.warnings
    );
    assert!(m
        .skeleton
        .rest_pose()
        .iter()
        .all(|t| t.rotation == glam::Quat::IDENTITY));
}

#[test]
fn a_reference_root_that_never_moves_is_not_the_root_motion_joint() {
    let six = "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation";
    let text = format!(
        "HIERARCHY\nROOT Ref\n{{\nOFFSET 0 0 0\n{six}\nJOINT Hips\n{{\nOFFSET 0 90 0\n{six}\n\
         End Site\n{{\nOFFSET 0 10 0\n}}\n}}\n}}\nMOTION\nFrames: 2\nFrame Time: 0.0333333\n\
         0 0 0 0 0 -0  0 90 0 0 0 0\n0 0 0 0 0 0  0 90 100 0 0 0\n"
    );
    let m = load_cm("reference.bvh", &text);
    let clip = &m.clips[0];
    assert!(clip.joint_tracks(0).is_none(), "Ref holds its rest pose");
    assert!(clip
        .joint_tracks(1)
        .is_some_and(|t| t.translation.is_some()));
    assert_eq!(
        stridescope::anim::RootMotionSource::detect(&m.skeleton, clip),
        Some(1)
    );
    near(
        pos(&m, "Hips", clip.duration_secs()),
        [0.0, 0.9, 1.0],
        "Hips f1",
    );
    // Nothing moves at all: the channels keep their tracks and the clip its length.
    let m = load_cm("still.bvh", &text.replace("0 90 100", "0 90 0"));
    assert_eq!(m.clips[0].duration_secs(), (1.0f64 / 30.0) as f32);
    assert_eq!(m.clips[0].channel_count(), 4);
}

// ---------------------------------------------------------------------------------------
// Malformed files
// ---------------------------------------------------------------------------------------

#[track_caller]
fn fails_at(name: &str, text: &str, line: usize, says: &str) {
    let err = match load_opts(name, text, &cm()) {
        Ok(_) => panic!("{name}: loaded, expected an error at line {line}"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains(name), "{name}: no file name in: {err}");
    assert!(
        err.contains(&format!(": line {line}: ")),
        "{name}: expected line {line} in: {err}"
    );
    assert!(err.contains(says), "{name}: expected '{says}' in: {err}");
}

#[test]
fn malformed_files_name_the_file_and_the_line() {
    fails_at(
        "fewer.bvh",
        &chain_with(20, "1 2 3 90 0 0 0 0"),
        17,
        "complete frames",
    );
    fails_at(
        "more_not_a_number.bvh",
        &(chain() + "7 x\n"),
        21,
        "'x' after the 2 frames Frames: declares is not a motion value",
    );
    fails_at(
        "channel.bvh",
        &chain_with(9, "CHANNELS 3 Zrotation Wrotation Yrotation"),
        9,
        "unknown channel 'Wrotation'",
    );
    fails_at(
        "channels7.bvh",
        &chain_with(9, "CHANNELS 7 Zrotation"),
        9,
        "at most 6",
    );
    fails_at(
        "twice.bvh",
        &chain_with(9, "CHANNELS 3 Zrotation Zrotation Yrotation"),
        9,
        "twice",
    );
    fails_at(
        "open_brace.bvh",
        &chain_with(7, ""),
        8,
        "expected '{' after JOINT 'Chest'",
    );
    fails_at("close_brace.bvh", &chain_with(14, ""), 16, "'}' is missing");
    fails_at(
        "extra_brace.bvh",
        &chain_with(16, "}"),
        16,
        "closes no joint",
    );
    fails_at(
        "nan.bvh",
        &chain_with(19, "5 0 0 nan 0 0 0 0 0"),
        19,
        "not a finite number",
    );
    fails_at(
        "inf.bvh",
        &chain_with(20, "1 2 3 90 0 inf 0 0 -90"),
        20,
        "frame 1, joint 'Hips' Yrotation",
    );
    fails_at(
        "huge.bvh",
        &chain_with(19, "5 0 0 1e39 0 0 0 0 0"),
        19,
        "not a finite number",
    );
    fails_at(
        "word.bvh",
        &chain_with(19, "5 0 0 x 0 0 0 0 0"),
        19,
        "not a number",
    );
    let header_only = CHAIN[..15].join("\n") + "\n";
    fails_at("no_motion.bvh", &header_only, 15, "no MOTION");
    fails_at("frames0.bvh", &chain_with(17, "Frames: 0"), 17, "no motion");
    fails_at(
        "frames_neg.bvh",
        &chain_with(17, "Frames: -2"),
        17,
        "not a frame count",
    );
    fails_at(
        "frames_overflow.bvh",
        &chain_with(17, "Frames: 99999999999999999999999"),
        17,
        "not a frame count",
    );
    fails_at(
        "no_frames.bvh",
        &chain_with(17, "Frame Time: 0.03"),
        17,
        "expected 'Frames:'",
    );
    fails_at(
        "time0.bvh",
        &chain_with(18, "Frame Time: 0"),
        18,
        "more than 0 s",
    );
    fails_at(
        "time_nan.bvh",
        &chain_with(18, "Frame Time: NaN"),
        18,
        "not a finite number",
    );
    fails_at(
        "no_channels.bvh",
        &chain_with(9, ""),
        6,
        "joint 'Chest' has no CHANNELS",
    );
    fails_at("no_offset.bvh", &chain_with(8, ""), 6, "has no OFFSET");
    fails_at(
        "root_in_joint.bvh",
        &chain_with(10, "ROOT Other"),
        10,
        "ROOT inside joint 'Chest'",
    );
    fails_at(
        "keyword.bvh",
        &chain_with(10, "Bone Site"),
        10,
        "unexpected 'Bone'",
    );
    fails_at("not_bvh.bvh", "{\"asset\": {}}", 1, "not a BVH file");
    fails_at("empty.bvh", "", 1, "empty");
    fails_at(
        "end_offset.bvh",
        &chain_with(12, "OFFSET 0 0"),
        13,
        "OFFSET value '}'",
    );

    // A frame count of a billion: refused at once, nothing allocated for it.
    let started = Instant::now();
    fails_at(
        "billion.bvh",
        &chain_with(17, "Frames: 1000000000"),
        17,
        "1000000000 frames",
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// A MOTION section with a frame more than `Frames:` says (a CMU conversion does this):
/// the declared frames play, as three.js's BVHLoader plays them, and a warning names the
/// line where the extra values begin; `--allow-truncated` is not needed.
#[test]
fn extra_frames_past_the_declared_count_load_with_a_warning() {
    let one_more = chain() + "0 0 0 0 0 0 0 0 0\n";
    let m = load_cm("one_more.bvh", &one_more);
    // Two declared frames at 1/30 s: the clip is one frame long, not two.
    assert_eq!(m.clips[0].duration_secs(), (1.0f64 / 30.0) as f32);
    // The second declared frame is what plays at the end (Hips at (1, 2, 3) cm).
    near(
        pos(&m, "Hips", m.clips[0].duration_secs()),
        [0.01, 0.02, 0.03],
        "the last declared frame",
    );
    let w = m.warnings.iter().find(|w| w.contains("extra motion"));
    assert!(
        w.is_some_and(|w| w.contains("1 frame(s)") && w.contains("from line 21")),
        "{:?}",
        m.warnings
    );
    // Part of a frame on the last declared frame's line: named there, by value.
    let m = load_cm(
        "more_same_line.bvh",
        &chain_with(20, "1 2 3 90 0 0 0 0 -90 7"),
    );
    assert_eq!(m.clips[0].duration_secs(), (1.0f64 / 30.0) as f32);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("1 value(s)") && w.contains("from line 20")),
        "{:?}",
        m.warnings
    );
}

#[test]
fn truncated_files_load_their_complete_frames_when_allowed() {
    let allow = LoadOptions {
        units: Some(Units::Centimetres),
        allow_truncated: true,
        ..Default::default()
    };
    let m = load_opts("short.bvh", &chain_with(20, "1 2 3 90 0 0 0 0"), &allow).unwrap();
    assert_eq!(m.clips[0].duration_secs(), 0.0);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("truncated") && w.contains("1 complete frames")),
        "{:?}",
        m.warnings
    );
    near(pos(&m, "Hips", 0.0), [0.05, 0.0, 0.0], "the complete frame");
    let m = load_opts(
        "billion_allowed.bvh",
        &chain_with(17, "Frames: 1000000000"),
        &allow,
    )
    .unwrap();
    assert_eq!(m.clips[0].duration_secs(), (1.0f64 / 30.0) as f32);
    // Not one complete frame: still an error.
    let half = chain_with(19, "5 0 0 0").replace("1 2 3 90 0 0 0 0 -90\n", "");
    let e = load_opts("half.bvh", &half, &allow)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("half.bvh: line 17: ") && e.contains("nothing to load"),
        "{e}"
    );
    // Values past the declared frames load with or without the option (the declared
    // frames play; see extra_frames_past_the_declared_count_load_with_a_warning).
    let m = load_opts("more_allowed.bvh", &(chain() + "7\n"), &allow).unwrap();
    assert_eq!(m.clips[0].duration_secs(), (1.0f64 / 30.0) as f32);
}

// ---------------------------------------------------------------------------------------
// Seeded mutations
// ---------------------------------------------------------------------------------------

/// xorshift64*: deterministic for a seed on every platform (as tests/common/mutation.rs).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INSERTS: [&str; 16] = [
    "{",
    "}",
    "nan",
    "-inf",
    "1e999",
    "JOINT X",
    "End Site",
    "CHANNELS 6",
    "ROOT",
    "MOTION",
    "Frames: 4294967296",
    "Frame Time: 1e-300",
    "\n",
    "-",
    "99999999999999999999",
    "\u{feff}",
];

fn mutate(original: &[u8], rng: &mut Rng) -> (Vec<u8>, String) {
    let mut b = original.to_vec();
    let what = match rng.below(5) {
        0 => {
            let flips = 1 + rng.below(8);
            for _ in 0..flips {
                let at = rng.below(b.len());
                b[at] ^= (1 + rng.below(255)) as u8;
            }
            format!("{flips} byte flips")
        }
        1 => {
            let len = rng.below(b.len());
            b.truncate(len);
            format!("truncated to {len} bytes")
        }
        2 => {
            let at = rng.below(b.len());
            let len = 1 + rng.below(64);
            b.drain(at..(at + len).min(b.len()));
            format!("{len} bytes removed at {at}")
        }
        3 => {
            let at = rng.below(b.len());
            let len = 1 + rng.below(256);
            let chunk = b[at..(at + len).min(b.len())].to_vec();
            let to = rng.below(b.len());
            b.splice(to..to, chunk);
            format!("{len} bytes from {at} copied to {to}")
        }
        _ => {
            let ins = INSERTS[rng.below(INSERTS.len())];
            let at = rng.below(b.len());
            b.splice(at..at, format!(" {ins} ").into_bytes());
            format!("'{}' inserted at {at}", ins.escape_debug())
        }
    };
    (b, what)
}

#[test]
fn mutated_files_never_panic_hang_or_over_allocate() {
    let bandai = bandai_files();
    let walk = std::fs::read(
        bandai
            .iter()
            .find(|p| name(p).contains("walk_normal"))
            .unwrap(),
    )
    .unwrap();
    let inputs: [(&str, Vec<u8>, usize); 3] = [
        ("chain.bvh", chain().into_bytes(), 150),
        ("biped.bvh", biped(1.0).into_bytes(), 200),
        ("bandai_walk.bvh", walk, 150),
    ];
    let (mut loaded, mut refused, mut worst) = (0, 0, 0.0f64);
    for (k, (file, original, count)) in inputs.iter().enumerate() {
        // Names the bytes in messages; nothing is written there.
        let path = std::env::temp_dir().join(file);
        for i in 0..*count {
            let seed = 0xb5_0000 + (k as u64) * 1_000_000 + i as u64;
            let (bytes, what) = mutate(original, &mut Rng(seed));
            let label = format!("{file} seed {seed:#x} ({what})");
            let before = LIVE.with(Cell::get);
            PEAK.with(|p| p.set(before));
            let started = Instant::now();
            // Half the loads keep the complete frames of a cut file, so that more mutations
            // reach the conversion.
            let options = LoadOptions {
                units: None,
                allow_truncated: i % 2 == 0,
                ..Default::default()
            };
            let result = asset::load_scene_from_slice_with(&bytes, &path, None, &options);
            let growth = PEAK.with(Cell::get) - before;
            worst = worst.max(growth as f64 / bytes.len().max(1) as f64);
            assert!(started.elapsed() < Duration::from_secs(5), "{label}: slow");
            assert!(
                growth <= (8 << 20) + 64 * bytes.len(),
                "{label}: {growth} bytes for {} bytes of input",
                bytes.len()
            );
            match result {
                Ok(m) => {
                    loaded += 1;
                    assert_eq!(m.format, SourceFormat::Bvh, "{label}");
                }
                Err(e) => {
                    refused += 1;
                    let text = e.to_string();
                    assert!(
                        text.starts_with(&path.display().to_string()),
                        "{label}: {text}"
                    );
                    assert!(e.element.starts_with("line "), "{label}: {text}");
                }
            }
        }
    }
    eprintln!(
        "{} mutations: {loaded} loaded, {refused} refused; heap growth at most {worst:.1} x \
         the input",
        loaded + refused
    );
    assert!(loaded > 0 && refused > 0);
}

// ---------------------------------------------------------------------------------------
// The Bandai Namco clips
// ---------------------------------------------------------------------------------------

fn bandai_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mocap/bandai");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
        .collect();
    files.sort();
    files
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

struct Measured {
    file: String,
    /// `walk`, `run`, `walk-turn-left`...
    kind: String,
    /// `normal`, `elderly`...
    style: String,
    speed_mps: f32,
}

#[test]
fn all_bandai_clips_load_in_centimetres_at_human_speeds() {
    let files = bandai_files();
    assert_eq!(files.len(), 482, "../shared/mocap/bandai");
    let measured: Vec<Measured> = files
        .par_iter()
        .map(|path| {
            let file = name(path);
            let m =
                asset::load_with(path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(m.format, SourceFormat::Bvh, "{file}");
            assert_eq!(m.source_units_m, 0.01, "{file}: {}", m.source_units_reason);
            assert!(m.skeleton.joint_count() >= 22, "{file}");
            assert_eq!(m.clips.len(), 1, "{file}");
            let clip = &m.clips[0];
            assert_eq!(clip.frame_rate_hz(), Some(30.0), "{file}");
            let hips = m.skeleton.find("Hips").unwrap_or(0);
            let d = clip.duration_secs();
            let travel = (positions(&m, d)[hips] - positions(&m, 0.0)[hips]).with_y(0.0);
            // dataset-2_<kind>_<style>_<n>.bvh
            let parts: Vec<&str> = file.trim_end_matches(".bvh").split('_').collect();
            Measured {
                kind: parts[1].to_string(),
                style: parts[2].to_string(),
                speed_mps: travel.length() / d,
                file,
            }
        })
        .collect();
    let mut failures = Vec::new();
    for (kind, lo, hi) in [("walk", 0.6, 1.6), ("run", 1.2, 3.8)] {
        let of_kind: Vec<&Measured> = measured.iter().filter(|m| m.kind == kind).collect();
        assert!(of_kind.len() > 50, "{kind}: {} files", of_kind.len());
        let mut styles: Vec<&str> = of_kind.iter().map(|m| m.style.as_str()).collect();
        styles.sort();
        styles.dedup();
        for style in styles {
            let s: Vec<&&Measured> = of_kind.iter().filter(|m| m.style == style).collect();
            let slow = s
                .iter()
                .min_by(|a, b| a.speed_mps.total_cmp(&b.speed_mps))
                .unwrap();
            let fast = s
                .iter()
                .max_by(|a, b| a.speed_mps.total_cmp(&b.speed_mps))
                .unwrap();
            eprintln!(
                "{kind:4} {style:9} {:2} files: {:.2}-{:.2} m/s (slowest {}, fastest {})",
                s.len(),
                slow.speed_mps,
                fast.speed_mps,
                slow.file,
                fast.file
            );
        }
        for m in &of_kind {
            if !(lo..=hi).contains(&m.speed_mps) {
                failures.push(format!(
                    "{}: {:.3} m/s outside {lo}-{hi}",
                    m.file, m.speed_mps
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A Bandai walk (a zero-pose skeleton: every limb along +X at rest) stands on two legs:
/// legs are found on its first frame, not on the zero pose where the left foot lies level
/// with the hips. And it is drawn with bone shapes: a generated mesh skinned to every
/// joint, whose posed tips sit on the posed joints.
#[test]
fn a_bandai_walk_has_two_legs_and_bone_shapes() {
    use stridescope::anim::{skinning_palette, SkinningJob};
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/mocap/bandai/dataset-2_walk_normal_002.bvh");
    let model = asset::load(&path).unwrap();
    let legs = model.legs().unwrap();
    let names: Vec<(&str, &str)> = legs
        .iter()
        .map(|l| (l.name.as_str(), model.skeleton.names()[l.foot].as_str()))
        .collect();
    assert_eq!(names, [("left", "Foot_L"), ("right", "Foot_R")]);
    // The rest pose is kept; the reference pose is the first frame.
    assert_ne!(model.skeleton.reference_pose(), model.skeleton.rest_pose());
    // Bone shapes.
    assert_eq!(model.meshes.len(), 1);
    let mesh = &model.meshes[0];
    assert_eq!(mesh.name, asset::bone_shapes::BONE_MESH_NAME);
    let skin = &model.skins[mesh.skin.unwrap()];
    assert_eq!(skin.joints.len(), model.skeleton.joint_count());
    let prim = &mesh.primitives[0];
    // 8 triangles per drawn bone: every bone of non-zero length (Bandai's End Sites
    // have zero OFFSETs) but joint_Root -> Hips (the hips travel away from the root).
    let rest = positions_rest(&model);
    let bones = model
        .skeleton
        .parents()
        .iter()
        .enumerate()
        .filter(|&(j, p)| p.is_some_and(|p| p != 0 && rest[p].distance(rest[j]) > 1e-6))
        .count();
    assert_eq!(bones, 20);
    assert_eq!(prim.positions.len(), bones * 8 * 3);
    let t = 2.0;
    let posed = positions(&model, t);
    let model_from_joint = positions_mats(&model, t);
    let mut palette = vec![Mat4::IDENTITY; skin.joints.len()];
    skinning_palette(&model_from_joint, skin, &mut palette).unwrap();
    let mut skinned = vec![Vec3::ZERO; prim.positions.len()];
    SkinningJob {
        palette: &palette,
        positions: &prim.positions,
        normals: &[],
        joints: &prim.joints,
        weights: &prim.weights,
    }
    .run(&mut skinned, &mut [])
    .unwrap();
    let foot = model.skeleton.find("Foot_L").unwrap();
    let hand = model.skeleton.find("Hand_R").unwrap();
    for j in [foot, hand] {
        let nearest = skinned
            .iter()
            .map(|v| v.distance(posed[j]))
            .fold(f32::INFINITY, f32::min);
        assert!(
            nearest < 1e-4,
            "{}: tip {nearest} m away",
            model.skeleton.names()[j]
        );
    }
}

fn positions_rest(model: &Model) -> Vec<Vec3> {
    let sk = &model.skeleton;
    let mut m = vec![Mat4::IDENTITY; sk.joint_count()];
    LocalToModelJob {
        parents: sk.parents(),
        local: sk.rest_pose(),
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut m)
    .unwrap();
    m.iter().map(|m| m.w_axis.truncate()).collect()
}

fn positions_mats(model: &Model, t: f32) -> Vec<Mat4> {
    let sk = &model.skeleton;
    let mut local = vec![Transform::IDENTITY; sk.joint_count()];
    SamplingJob {
        clip: &model.clips[0],
        time_secs: t,
        rest_pose: sk.rest_pose(),
    }
    .run(&mut local)
    .unwrap();
    let mut m = vec![Mat4::IDENTITY; sk.joint_count()];
    LocalToModelJob {
        parents: sk.parents(),
        local: &local,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut m)
    .unwrap();
    m
}

/// A folder of BVH files opens as one character with every file as a clip (issue 20):
/// the Bandai folder's 482 clips (all on one skeleton) on one model with bone shapes;
/// a file with another skeleton or a broken one dropped in is skipped and listed.
#[test]
fn a_folder_of_bvh_files_is_one_character_with_every_file_a_clip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mocap/bandai");
    let files = bandai_files();
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let model = asset::folder::load_folder(&dir, &LoadOptions::default(), &|_, total| {
        assert_eq!(total, files.len());
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(
        calls.into_inner(),
        files.len(),
        "one progress call per file"
    );
    assert_eq!(model.clips.len(), files.len(), "{:?}", model.warnings);
    assert_eq!(model.format, SourceFormat::Bvh);
    assert!(model.source.starts_with("bandai ("), "{}", model.source);
    for (clip, file) in model.clips.iter().zip(&files) {
        assert_eq!(clip.name(), file.file_stem().unwrap().to_string_lossy());
    }
    assert_eq!(model.meshes.len(), 1, "bone shapes once");
    // asset::load opens a folder the same way.
    let small_dir = Scratch::new("bvh-mixed-folder");
    let small = small_dir.path();
    for f in files.iter().take(2) {
        std::fs::copy(f, small.join(f.file_name().unwrap())).unwrap();
    }
    std::fs::write(small.join("zz_other.bvh"), chain()).unwrap();
    std::fs::write(small.join("zz_broken.bvh"), "HIERARCHY\nROOT Hips\n{\n").unwrap();
    std::fs::write(small.join("notes.txt"), "not motion").unwrap();
    let m = asset::load(small).unwrap();
    assert_eq!(m.clips.len(), 2);
    assert!(
        m.warnings[0].contains("2 of 4 files skipped"),
        "{:?}",
        m.warnings
    );
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("zz_other.bvh") && w.contains("another skeleton")),
        "{:?}",
        m.warnings
    );
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("zz_broken.bvh") && w.contains("line")),
        "{:?}",
        m.warnings
    );
    // A folder without BVH files says so.
    let empty = Scratch::new("bvh-no-bvh-folder");
    let e = asset::load(empty.path()).unwrap_err().to_string();
    assert!(e.contains("no .bvh or .fbx file"), "{e}");
}

/// Takes of another actor (same joints, other bone lengths) join the folder with one
/// warning naming them: they play on the first file's bone lengths.
#[test]
fn a_folder_names_takes_with_other_bone_lengths() {
    let scratch = Scratch::new("bvh-two-actors");
    let dir = scratch.path();
    std::fs::write(dir.join("a.bvh"), chain()).unwrap();
    std::fs::write(dir.join("b.bvh"), chain_with(8, "\t\tOFFSET 15 0 0")).unwrap();
    std::fs::write(dir.join("c.bvh"), chain()).unwrap();
    let m = asset::folder::load_folder(dir, &cm(), &|_, _| {}).unwrap();
    assert_eq!(m.clips.len(), 3);
    let w: Vec<&String> = m
        .warnings
        .iter()
        .filter(|w| w.contains("bone lengths"))
        .collect();
    assert_eq!(
        w,
        [&"1 files have the same joints but other bone lengths (up to 5.0 cm) and play on the first file's skeleton: b.bvh".to_string()],
        "{:?}",
        m.warnings
    );
}

/// The window reads every file with the options it was started with (`--units` and
/// friends reached it through an environment variable before): a Bandai take, detected
/// as centimetres, opens in millimetres when told so.
#[test]
fn the_window_opens_files_with_its_load_options() {
    let take = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/mocap/bandai/dataset-2_walk_normal_002.bvh");
    let demo = asset::load_or_demo(None).unwrap();
    let mut p = stridescope::app::ui::Previewer::new(
        demo,
        None,
        stridescope::app::settings::Settings::default(),
    );
    p.open_path(&take).unwrap();
    assert_eq!(p.model().source_units_m, 0.01);
    p.set_load_options(LoadOptions {
        units: Some(Units::parse("mm").unwrap()),
        ..LoadOptions::default()
    });
    p.open_path(&take).unwrap();
    assert_eq!(p.model().source_units_m, 0.001);
    // Ten times smaller than in centimetres: the hips' rest height says so.
    let hips_y = |m: &Model| {
        m.skeleton
            .rest_pose()
            .iter()
            .map(|t| t.translation.y.abs())
            .fold(0.0f32, f32::max)
    };
    let cm = asset::load(&take).unwrap();
    let ratio = hips_y(p.model()) / hips_y(&cm);
    assert!((ratio - 0.1).abs() < 1e-4, "{ratio}");
}
