//! The pose graph end to end on real characters: marker-synced cross-fades keep the feet in
//! step (the unsynced fade does not), blended root speed rises monotonically through a
//! walk -> run fade, seeks emit no root motion, the demo's default state machine walks,
//! runs and waves, and an interrupted transition never jumps.

use std::path::Path;

use stridescope::anim::{LocalToModelJob, SyncMarker};
use stridescope::asset::{self, Model};
use stridescope::graph::def::{self, BlendInputDef, GraphDef, NodeDef, ParamDef, SyncMode, Weight};
use stridescope::graph::{GraphError, PoseGraph};
use stridescope::stage::scenario::{Action, Scenario, ScenarioEvent, ScenarioRun};
use stridescope::stage::session::GraphSession;

fn demo() -> Model {
    asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).unwrap()
}

fn robot() -> Model {
    asset::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb"))
        .unwrap()
}

/// A two-input blend whose second weight is the parameter `w`.
fn fade_graph(a: &str, b: &str, sync: SyncMode) -> GraphDef {
    GraphDef {
        params: vec![ParamDef::Float {
            name: "w".into(),
            default: 0.0,
            min: Some(0.0),
            max: Some(1.0),
        }],
        base: NodeDef::Blend {
            inputs: vec![
                BlendInputDef {
                    clip: a.into(),
                    weight: Weight::Param("a".into()),
                    offset: 0.0,
                },
                BlendInputDef {
                    clip: b.into(),
                    weight: Weight::Param("w".into()),
                    offset: 0.0,
                },
            ],
            sync,
        },
        layers: vec![],
    }
}

fn with_a(mut g: GraphDef) -> GraphDef {
    g.params.push(ParamDef::Float {
        name: "a".into(),
        default: 1.0,
        min: None,
        max: None,
    });
    g
}

/// Position of `t` after the clip's `left_foot_down`, as a fraction of the stretch from
/// one left_foot_down to the right_foot_down and on: the gait phase the markers define
/// (0 = left down, 0.5 = right down), so clips of different lengths compare.
fn gait_phase(markers: &[SyncMarker], duration: f64, t: f64) -> f64 {
    let find = |n: &str| {
        markers
            .iter()
            .find(|m| m.name == n)
            .unwrap_or_else(|| panic!("marker {n} missing in {markers:?}"))
            .time_secs as f64
    };
    let (l, r) = (find("left_foot_down"), find("right_foot_down"));
    let lr = (r - l).rem_euclid(duration);
    let x = (t - l).rem_euclid(duration);
    if x < lr {
        0.5 * x / lr
    } else {
        0.5 + 0.5 * (x - lr) / (duration - lr)
    }
}

fn cyclic_distance(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(1.0);
    d.min(1.0 - d)
}

/// Fades A -> B over 2 s at 60 fps and returns (worst gait-phase error between the two
/// inputs while both have weight, per-frame root speeds).
fn fade(model: &Model, a: &str, b: &str, sync: SyncMode) -> (f64, Vec<f64>) {
    let mut g = PoseGraph::new(model, &with_a(fade_graph(a, b, sync))).unwrap();
    let dt = 1.0 / 60.0;
    let mut worst: f64 = 0.0;
    let mut speeds = Vec::new();
    // One second of A alone, then the fade over two seconds, then one second of B.
    for frame in 0..240 {
        let t = frame as f64 * dt;
        let w = ((t - 1.0) / 2.0).clamp(0.0, 1.0) as f32;
        g.params_mut().set_float("w", w).unwrap();
        g.params_mut().set_float("a", 1.0 - w).unwrap();
        g.advance(model, dt).unwrap();
        speeds.push(g.root_delta().translation.length() / dt);
        let players = g.players();
        if w > 0.05 && w < 0.95 {
            let pa = &players[0];
            let pb = &players[1];
            let ua = gait_phase(&pa.markers, pa.duration_secs(), pa.clock.time().phase_secs);
            let ub = gait_phase(&pb.markers, pb.duration_secs(), pb.clock.time().phase_secs);
            worst = worst.max(cyclic_distance(ua, ub));
        }
    }
    (worst, speeds)
}

#[test]
fn marker_synced_walk_to_run_keeps_the_feet_in_step_on_the_demo() {
    let model = demo();
    let (synced, _) = fade(&model, "Walk", "Run", SyncMode::Markers);
    let (unsynced, _) = fade(&model, "Walk", "Run", SyncMode::None);
    // Bound: a hundredth of a gait cycle (the follower is placed exactly between the
    // shared markers; what remains is the per-frame phase step of the leader switch).
    assert!(synced < 0.01, "synced contact phase error {synced}");
    assert!(unsynced > 0.2, "unsynced error only {unsynced}");
}

#[test]
fn robot_walking_gets_detected_markers_and_running_falls_back_to_the_phase() {
    // The Robot's clips carry no markers. Its walk's feet plant, so markers are detected;
    // its run's feet never settle (no contact passes the thresholds), so marker sync falls
    // back to the normalised phase for that pair.
    let model = robot();
    let mut g = PoseGraph::new(
        &model,
        &with_a(fade_graph(
            "Robot_Walking",
            "Robot_Running",
            SyncMode::Markers,
        )),
    )
    .unwrap();
    let walk = &g.players()[0];
    assert!(walk.markers_detected);
    let names: Vec<&str> = walk.markers.iter().map(|m| m.name.as_str()).collect();
    assert!(
        names.contains(&"left_foot_down") && names.contains(&"right_foot_down"),
        "{names:?}"
    );
    assert!(g.players()[1].markers.is_empty());
    g.params_mut().set_float("w", 0.4).unwrap();
    g.params_mut().set_float("a", 0.6).unwrap();
    for _ in 0..100 {
        g.advance(&model, 1.0 / 60.0).unwrap();
        let (a, b) = (g.players()[0].normalized(), g.players()[1].normalized());
        assert!(cyclic_distance(a, b) < 1e-6, "{a} vs {b}");
    }
}

#[test]
fn blended_root_speed_rises_monotonically_through_a_walk_to_run_fade() {
    let model = demo();
    // Cycle sync (the blend space's): average the speed over each blended cycle so the
    // walk's own in-cycle speed changes (0.6 .. 1.2 x its mean) do not count.
    let mut g =
        PoseGraph::new(&model, &with_a(fade_graph("Walk", "Run", SyncMode::Cycle))).unwrap();
    let dt = 1.0 / 120.0;
    let mut cycle_means = Vec::new();
    let (mut dist, mut time) = (0.0, 0.0);
    let mut last_cycle = 0i64;
    // Two walk cycles (2.2 s), a 6 s fade, then run.
    for frame in 0..(120 * 10) {
        let t = frame as f64 * dt;
        let w = ((t - 2.2) / 6.0).clamp(0.0, 1.0) as f32;
        g.params_mut().set_float("w", w).unwrap();
        g.params_mut().set_float("a", 1.0 - w).unwrap();
        g.advance(&model, dt).unwrap();
        dist += g.root_delta().translation.length();
        time += dt;
        let cycle = g.players()[0].clock.time().cycle;
        if cycle != last_cycle {
            cycle_means.push(dist / time);
            dist = 0.0;
            time = 0.0;
            last_cycle = cycle;
        }
    }
    // Walk 1.4 m / 1.1 s = 1.273 m/s; Run 3.5 m / 0.7 s = 5.0 m/s.
    let first = cycle_means[0];
    let last = *cycle_means.last().unwrap();
    assert!((first - 1.4 / 1.1).abs() < 0.02, "walk speed {first}");
    assert!((last - 5.0).abs() < 0.1, "run speed {last}");
    for w in cycle_means.windows(2) {
        assert!(
            w[1] >= w[0] - 1e-3,
            "speed fell from {} to {}: {cycle_means:?}",
            w[0],
            w[1]
        );
    }
}

#[test]
fn a_seek_emits_no_root_motion_and_plays_on_from_there() {
    let model = demo();
    let mut g = PoseGraph::new(
        &model,
        &with_a(fade_graph("Walk", "Run", SyncMode::Markers)),
    )
    .unwrap();
    g.params_mut().set_float("w", 0.5).unwrap();
    g.params_mut().set_float("a", 0.5).unwrap();
    for _ in 0..30 {
        g.advance(&model, 1.0 / 30.0).unwrap();
    }
    assert!(g.root_delta().translation.length() > 0.01);
    g.seek(&model, 3.1).unwrap();
    assert_eq!(g.root_delta().translation.length(), 0.0);
    // Every input moved: the leader to 3.1 s (cycle 2 of the 1.1 s walk, phase 0.9 s).
    let lead = g.leader();
    assert_eq!(lead.clock.time().cycle, 2);
    assert!((lead.clock.time().phase_secs - 0.9).abs() < 1e-6);
}

#[test]
fn two_copies_of_the_walk_half_a_cycle_apart_warn_and_in_phase_do_not() {
    let model = demo();
    let half = GraphDef {
        params: vec![],
        base: NodeDef::Blend {
            inputs: vec![
                BlendInputDef {
                    clip: "Walk".into(),
                    weight: Weight::Fixed(0.5),
                    offset: 0.0,
                },
                BlendInputDef {
                    clip: "Walk".into(),
                    weight: Weight::Fixed(0.5),
                    offset: 0.5,
                },
            ],
            sync: SyncMode::None,
        },
        layers: vec![],
    };
    let mut g = PoseGraph::new(&model, &half).unwrap();
    g.advance(&model, 1.0 / 60.0).unwrap();
    let r = g.phase_report().expect("two inputs are measured");
    assert!(r.warning, "{r:?}");
    // The demo walk is no pure sine: half a cycle apart cancels 71% of its leg swing
    // (tests/phase.rs measures the whole envelope).
    assert!(r.amplitude_drop > 0.6, "{r:?}");
    let mut same = half.clone();
    if let NodeDef::Blend { inputs, .. } = &mut same.base {
        inputs[1].offset = 0.0;
    }
    let mut g = PoseGraph::new(&model, &same).unwrap();
    g.advance(&model, 1.0 / 60.0).unwrap();
    let r = g.phase_report().unwrap();
    assert!(!r.warning && r.amplitude_drop < 0.01, "{r:?}");
}

/// Largest model-space move of any joint between two local poses.
fn max_joint_jump(
    model: &Model,
    a: &[stridescope::anim::Transform],
    b: &[stridescope::anim::Transform],
) -> f32 {
    let n = model.skeleton.joint_count();
    let mut ma = vec![glam::Mat4::IDENTITY; n];
    let mut mb = vec![glam::Mat4::IDENTITY; n];
    for (local, out) in [(a, &mut ma), (b, &mut mb)] {
        LocalToModelJob {
            parents: model.skeleton.parents(),
            local,
            model_from_root: glam::Mat4::IDENTITY,
        }
        .run(out)
        .unwrap();
    }
    ma.iter()
        .zip(&mb)
        .map(|(x, y)| x.w_axis.truncate().distance(y.w_axis.truncate()))
        .fold(0.0, f32::max)
}

/// Runs the demo's default graph through a scenario and returns the largest per-frame
/// joint jump, the final state and the distance travelled.
fn run_demo_scenario(events: Vec<ScenarioEvent>, seconds: f64) -> (f32, String, f64, PoseGraph) {
    let model = demo();
    let graph = PoseGraph::new(&model, &def::demo_graph()).unwrap();
    let mut run = ScenarioRun::new(Scenario {
        graph: None,
        fps: 60.0,
        seconds,
        events,
        motion_matching: None,
    })
    .unwrap();
    let mut prev = graph.local_pose().to_vec();
    let mut worst: f32 = 0.0;
    let mut session = GraphSession::from_graph(graph);
    for _ in 0..=run.frame_count() {
        run.step(&model, &mut session).unwrap();
        let graph = &session.graph;
        worst = worst.max(max_joint_jump(&model, &prev, graph.local_pose()));
        prev.copy_from_slice(graph.local_pose());
    }
    let graph = session.graph;
    let sm = graph.state_machine().unwrap();
    let state = sm.state_name(sm.current()).to_string();
    let d = run.world_from_root.translation.length();
    (worst, state, d, graph)
}

fn at(at_secs: f64, action: Action) -> ScenarioEvent {
    ScenarioEvent { at_secs, action }
}

#[test]
fn the_demo_graph_walks_runs_and_stops() {
    let (_, state, dist, _) =
        run_demo_scenario(vec![at(0.5, Action::Set("speed".into(), 1.27))], 3.0);
    assert_eq!(state, "Move");
    // About 2.5 s of walking at 1.27 m/s (minus the 0.3 s fade in).
    assert!(dist > 2.5 && dist < 3.4, "walked {dist} m");
    let (_, state, dist_run, g) =
        run_demo_scenario(vec![at(0.0, Action::Set("speed".into(), 5.0))], 2.0);
    assert_eq!(state, "Move");
    assert!(dist_run > 8.0, "ran {dist_run} m");
    let run_weight = g
        .status(&demo())
        .into_iter()
        .find(|s| s.clip == "Run")
        .map(|s| s.weight)
        .unwrap();
    assert!((run_weight - 1.0).abs() < 1e-6, "run weight {run_weight}");
    let (_, state, _, _) = run_demo_scenario(
        vec![
            at(0.0, Action::Set("speed".into(), 2.0)),
            at(1.0, Action::Set("speed".into(), 0.0)),
        ],
        2.0,
    );
    assert_eq!(state, "Idle");
}

#[test]
fn interrupting_a_fade_never_jumps_the_pose() {
    // Normal playback's largest per-frame joint move at 60 fps, for the bound.
    let (plain, _, _, _) = run_demo_scenario(vec![at(0.0, Action::Set("speed".into(), 2.0))], 2.0);
    // Flip-flop the speed every 0.1 s across the Idle/Move thresholds: every switch
    // interrupts the running fade (interruption: Destination).
    let mut events = Vec::new();
    for i in 0..30 {
        let v = if i % 2 == 0 { 2.0 } else { 0.0 };
        events.push(at(0.2 + i as f64 * 0.1, Action::Set("speed".into(), v)));
    }
    let (worst, _, _, g) = run_demo_scenario(events, 4.0);
    assert!(
        worst < plain * 1.5 + 0.005,
        "an interruption jumped {worst} m in one frame (plain playback: {plain} m)"
    );
    // After the toggling stops (at 3.1 s, speed 0) the machine settles fully in Idle.
    let sm = g.state_machine().unwrap();
    assert_eq!(sm.state_name(sm.current()), "Idle");
    assert!(sm.transition_progress().is_none());
}

#[test]
fn the_wave_layer_moves_only_the_upper_body() {
    let model = demo();
    let mut g = PoseGraph::new(&model, &def::demo_graph()).unwrap();
    g.advance(&model, 0.5).unwrap();
    let without = g.local_pose().to_vec();
    g.params_mut().set_float("wave", 1.0).unwrap();
    g.evaluate(&model).unwrap();
    let with = g.local_pose().to_vec();
    let names = model.skeleton.names();
    for (j, name) in names.iter().enumerate() {
        let lower = ["root", "pelvis", "thigh", "calf", "foot", "toe"]
            .iter()
            .any(|p| name.starts_with(p));
        if lower {
            assert_eq!(with[j], without[j], "{name} changed under the masked wave");
        }
    }
    let hand = model.skeleton.find("upperarm_r").unwrap();
    assert!(with[hand].rotation.angle_between(without[hand].rotation) > 0.1);
}

#[test]
fn graph_errors_name_the_state_and_the_clip() {
    let model = demo();
    let text = r#"(
    base: StateMachine(machine: (
        initial: "Idle",
        states: [
            (name: "Idle", node: Clip(clip: "Idle")),
            (name: "Sprint", node: Clip(clip: "Sprinting")),
        ],
    )),
)"#;
    let g: GraphDef = def::parse_ron(text, Path::new("bad.ron")).unwrap();
    let e = PoseGraph::new(&model, &g).unwrap_err();
    // The error says which clip, where, and which clips there are, as data and as text.
    match &e {
        GraphError::UnknownClip {
            context,
            clip,
            clips,
        } => {
            assert_eq!(context, "state 'Sprint'");
            assert_eq!(clip, "Sprinting");
            assert!(clips.iter().any(|c| c == "Idle"), "{clips:?}");
        }
        other => panic!("expected an unknown clip, got {other:?}"),
    }
    let text_of = e.to_string();
    assert!(
        text_of.contains("state 'Sprint'") && text_of.contains("unknown clip 'Sprinting'"),
        "{e}"
    );
    assert_eq!(def::line_of_name(text, "Sprint"), Some(6));
    let broken = "(\n  base: Clip(clip: \"Walk\",,),\n)";
    let e = def::parse_ron::<GraphDef>(broken, Path::new("broken.ron")).unwrap_err();
    assert!(matches!(&e, GraphError::Parse { line: 2, .. }), "{e:?}");
    assert!(e.to_string().starts_with("broken.ron:2:"), "{e}");
}

#[test]
fn single_clip_requests_go_through_a_one_clip_graph_and_show_the_clip_exactly() {
    // scene::Pose evaluates a clip request with a one-clip graph (PoseGraph::clip_preview):
    // its output must be the sampled clip itself, to the bit, with the root motion
    // removed (timeline In place / Accumulate) or kept (Loop and reset), at the clip's
    // first key, inside it and at its very end (a clamped timeline shows the last key).
    use stridescope::anim::{ClipRootMotion, SamplingJob, Transform};
    use stridescope::stage::pose::{Pose, PoseRequest};
    let model = demo();
    let walk = model.find_clip("Walk").unwrap();
    let clip = &model.clips[walk];
    let root = ClipRootMotion::for_clip(&model.skeleton, clip, None)
        .unwrap()
        .expect("the demo walk has root motion");
    let mut pose = Pose::new(&model);
    let d = clip.duration_secs();
    for t in [0.0, 0.013, 0.37, d * 0.5, d - 1e-4, d] {
        for remove in [false, true] {
            pose.evaluate(
                &model,
                &PoseRequest {
                    clip: Some(walk),
                    time_secs: t,
                    remove_root_motion: remove.then_some(&root),
                    model_from_root: glam::Mat4::IDENTITY,
                },
            )
            .unwrap();
            let mut expected = vec![Transform::IDENTITY; model.skeleton.joint_count()];
            SamplingJob {
                clip,
                time_secs: t,
                rest_pose: model.skeleton.rest_pose(),
            }
            .run(&mut expected)
            .unwrap();
            if remove {
                root.source
                    .remove(&root.motion, t as f64, &mut expected)
                    .unwrap();
            }
            assert_eq!(pose.local(), &expected[..], "t = {t}, remove = {remove}");
        }
    }
    // The end shows the last key, not the first (the loop does not wrap a shown time).
    let mut first = Pose::new(&model);
    for (p, t) in [(&mut first, 0.0f32), (&mut pose, d)] {
        p.evaluate(
            &model,
            &PoseRequest {
                clip: Some(walk),
                time_secs: t,
                remove_root_motion: None,
                model_from_root: glam::Mat4::IDENTITY,
            },
        )
        .unwrap();
    }
    assert_ne!(first.local(), pose.local());
}

/// A follower whose `left_foot_down` appears twice per cycle (a stumble marked by hand)
/// against a leader with one: marker sync falls back to the first shared marker at a
/// uniform rate, says so in the phase report's notes, and the follower plays exactly one
/// cycle per leader cycle.
#[test]
fn a_marker_that_appears_twice_is_noted_and_keeps_one_cycle_per_cycle() {
    let mut model = demo();
    let run = model.find_clip("Run").unwrap();
    let c = &model.clips[run];
    let mut markers = c.markers().to_vec();
    markers.push(SyncMarker {
        name: "left_foot_down".into(),
        time_secs: 0.1,
    });
    model.clips[run] = stridescope::anim::Clip::new(
        "Run".into(),
        c.tracks().to_vec(),
        markers,
        model.skeleton.joint_count(),
    )
    .unwrap();
    let mut g = PoseGraph::new(
        &model,
        &with_a(fade_graph("Walk", "Run", SyncMode::Markers)),
    )
    .unwrap();
    g.params_mut().set_float("w", 0.4).unwrap();
    g.params_mut().set_float("a", 0.6).unwrap();
    for _ in 0..600 {
        g.advance(&model, 1.0 / 60.0).unwrap();
    }
    let notes = g.sync_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("'Run' on 'Walk'") && notes[0].contains("different number of times"),
        "{notes:?}"
    );
    let (walk, run) = (g.players()[0].cycles(), g.players()[1].cycles());
    assert!(
        (run - walk).abs() < 0.05,
        "Run {run} cycles in Walk's {walk}"
    );
    // The demo's own clips pair every marker: no note.
    let plain = demo();
    let mut g = PoseGraph::new(
        &plain,
        &with_a(fade_graph("Walk", "Run", SyncMode::Markers)),
    )
    .unwrap();
    g.params_mut().set_float("w", 0.4).unwrap();
    g.params_mut().set_float("a", 0.6).unwrap();
    g.advance(&plain, 1.0 / 60.0).unwrap();
    assert!(g.phase_report().is_some());
    assert!(g.sync_notes().is_empty(), "{:?}", g.sync_notes());
}

/// `clip` played `factor` times slower, as a clip of its own.
fn retimed(
    clip: &stridescope::anim::Clip,
    factor: f32,
    name: &str,
    joints: usize,
) -> stridescope::anim::Clip {
    use stridescope::anim::clip::TrackValue;
    use stridescope::anim::{Interpolation, JointTracks, Track};
    fn slow<T: TrackValue>(t: &Track<T>, factor: f32) -> Track<T> {
        assert_ne!(t.interpolation(), Interpolation::CubicSpline);
        Track::new(
            t.interpolation(),
            t.times().iter().map(|x| x * factor).collect(),
            t.values().to_vec(),
            "retimed",
        )
        .unwrap()
    }
    let tracks = clip
        .tracks()
        .iter()
        .map(|jt| JointTracks {
            joint: jt.joint,
            translation: jt.translation.as_ref().map(|t| slow(t, factor)),
            rotation: jt.rotation.as_ref().map(|t| slow(t, factor)),
            scale: jt.scale.as_ref().map(|t| slow(t, factor)),
        })
        .collect();
    stridescope::anim::Clip::new(name.into(), tracks, vec![], joints).unwrap()
}

/// An unsynced blend of clips of different lengths drifts through every relative phase;
/// the graph measures each phase bucket once and keeps the report (issue 23: the Fox's
/// frame spent most of its time re-measuring). The Fox's Walk blended 50/50 with itself
/// played 1.31 times slower drifts from in step (nothing cancels) to half a cycle apart
/// (the swing cancels) and back every few seconds: over 40 s every frame's report stays
/// within one bucket's change of a measurement made afresh at that frame's exact offset,
/// and the warning comes and goes (so a stale report would show).
#[test]
fn an_unsynced_drifting_blend_reports_each_phase_from_its_cache_correctly() {
    use stridescope::anim::phase::{measure_phase_cancellation, PhaseInput};
    let mut model =
        asset::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Fox/Fox.glb"))
            .unwrap();
    let walk = model.find_clip("Walk").unwrap();
    let slow = retimed(
        &model.clips[walk],
        1.31,
        "Walk slow",
        model.skeleton.joint_count(),
    );
    model.clips.push(slow);
    model.analysis = Default::default();
    let blend = GraphDef {
        params: vec![],
        base: NodeDef::Blend {
            inputs: ["Walk", "Walk slow"]
                .iter()
                .map(|clip| BlendInputDef {
                    clip: (*clip).into(),
                    weight: Weight::Fixed(0.5),
                    offset: 0.0,
                })
                .collect(),
            sync: SyncMode::None,
        },
        layers: vec![],
    };
    let mut g = PoseGraph::new(&model, &blend).unwrap();
    let legs: Vec<(usize, usize)> = g.legs().iter().map(|l| (l.thigh, l.foot)).collect();
    assert_eq!(legs.len(), 4, "the Fox's four legs are found");
    let (mut warned, mut quiet, mut worst) = (0, 0, 0.0f64);
    for frame in 0..2400 {
        g.advance(&model, 1.0 / 60.0).unwrap();
        let cached = *g.phase_report().expect("two inputs are measured");
        if frame % 7 != 0 {
            continue;
        }
        let p = g.players();
        let lead = p[0].normalized();
        let inputs: Vec<PhaseInput> = p
            .iter()
            .map(|pl| PhaseInput {
                clip: &model.clips[pl.clip],
                phase_offset: (pl.normalized() - lead).rem_euclid(1.0),
                weight: pl.weight,
                window_secs: None,
                aligned: None,
            })
            .collect();
        let fresh = measure_phase_cancellation(&model.skeleton, &legs, &inputs, 48).unwrap();
        worst = worst.max((cached.amplitude_drop - fresh.amplitude_drop).abs());
        if cached.warning {
            warned += 1;
        } else {
            quiet += 1;
        }
    }
    eprintln!("worst difference {worst}, warned {warned}, quiet {quiet}");
    // Half a bucket (0.025 cycle) of drift moves the drop by at most ~0.08.
    assert!(worst < 0.1, "a cached report is {worst} off a fresh one");
    assert!(warned > 10 && quiet > 10, "warned {warned}, quiet {quiet}");
}

#[test]
fn a_two_clip_blend_matches_the_per_joint_jobs_frame_after_frame() {
    // Each frame's output against the per-joint jobs run on the players' own clocks and
    // weights: SamplingJob, root motion removed, BlendingJob, to the bit. Ten seconds at
    // 60 Hz, unsynced (the Fox's Walk and Run differ in length, so their phases drift).
    use stridescope::anim::blend::blending::{BlendLayer, BlendingJob};
    use stridescope::anim::{GroundTransform, SamplingJob, Transform};
    use stridescope::graph::def::Sample1DDef;
    let fox =
        asset::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Fox/Fox.glb"))
            .unwrap();
    let mut removed_root_motion = 0;
    for (model, a, b, weight) in [
        (demo(), "Walk", "Run", 0.45f32),
        (robot(), "Robot_Walking", "Robot_Running", 0.3),
        (fox, "Walk", "Run", 0.6),
    ] {
        let def = GraphDef {
            params: vec![ParamDef::Float {
                name: "speed".into(),
                default: weight,
                min: Some(0.0),
                max: Some(1.0),
            }],
            base: NodeDef::BlendSpace1D {
                param: "speed".into(),
                samples: vec![
                    Sample1DDef {
                        clip: a.into(),
                        position: Some(0.0),
                    },
                    Sample1DDef {
                        clip: b.into(),
                        position: Some(1.0),
                    },
                ],
                sync: SyncMode::None,
            },
            layers: Vec::new(),
        };
        let mut session = GraphSession::new(&model, &def).unwrap();
        session.playing = true;
        let rest = model.skeleton.rest_pose();
        let n = model.skeleton.joint_count();
        for frame in 0..600 {
            session.tick(&model, 1.0 / 60.0);
            let graph = &session.graph;
            let mut poses = Vec::new();
            for p in graph
                .players()
                .iter()
                .filter(|p| p.weight > 0.0 && !p.is_layer)
            {
                let t = p.clock.time().phase_secs;
                let mut pose = vec![Transform::IDENTITY; n];
                SamplingJob {
                    clip: &model.clips[p.clip],
                    time_secs: t as f32,
                    rest_pose: rest,
                }
                .run(&mut pose)
                .unwrap();
                if let (Some(r), false) = (&p.root, p.keep_root_motion) {
                    r.source.remove(&r.motion, t, &mut pose).unwrap();
                    if p.align != GroundTransform::IDENTITY {
                        r.source.place(&p.align, &mut pose).unwrap();
                    }
                    removed_root_motion += 1;
                }
                poses.push((pose, p.weight));
            }
            assert_eq!(poses.len(), 2, "{a}/{b} frame {frame}: both clips weigh");
            let layers: Vec<BlendLayer> = poses
                .iter()
                .map(|(pose, w)| BlendLayer {
                    pose,
                    weight: *w,
                    joint_weights: None,
                })
                .collect();
            let mut expected = vec![Transform::IDENTITY; n];
            BlendingJob {
                layers: &layers,
                rest_pose: rest,
                threshold: BlendingJob::DEFAULT_THRESHOLD,
            }
            .run(&mut expected)
            .unwrap();
            assert_eq!(graph.local_pose(), &expected[..], "{a}/{b} frame {frame}");
        }
    }
    // The demo's walk and run travel: root motion was removed from both, every frame.
    assert!(removed_root_motion >= 2 * 600, "{removed_root_motion}");
}

/// A layer with `hold` plays its clip at that one time whatever the graph's clock does
/// (three.js's example holds its `*_pose` additive clips so): an override layer of the
/// Wave over every joint, held at 0.5 s, gives the Wave's own pose at 0.5 s after any
/// amount of play and after a seek; a hold past the end is the last frame; a non-finite
/// hold is refused naming the layer.
#[test]
fn a_held_layer_shows_its_clip_at_the_held_time() {
    use stridescope::anim::SamplingJob;
    use stridescope::graph::def::{LayerDef, LayerMode};
    let model = demo();
    let wave = model.find_clip("Wave").unwrap();
    let wave_at = |t: f32| {
        let mut local = model.skeleton.rest_pose().to_vec();
        SamplingJob {
            clip: &model.clips[wave],
            time_secs: t,
            rest_pose: model.skeleton.rest_pose(),
        }
        .run(&mut local)
        .unwrap();
        local
    };
    let held = |hold: f32| {
        let mut g = def::default_graph(&["Walk"], &[false]).unwrap();
        g.layers.push(LayerDef {
            name: "pose".into(),
            clip: "Wave".into(),
            mode: LayerMode::Override,
            weight: Weight::Fixed(1.0),
            mask: None,
            reference: Default::default(),
            hold: Some(hold),
        });
        g
    };
    let close =
        |a: &[stridescope::anim::Transform], b: &[stridescope::anim::Transform], what: &str| {
            for (j, (x, y)) in a.iter().zip(b).enumerate() {
                assert!(
                    x.rotation.dot(y.rotation).abs() > 1.0 - 1e-6
                        && x.translation.distance(y.translation) < 1e-5,
                    "{what}: joint {j}: {x:?} vs {y:?}"
                );
            }
        };
    let expected = wave_at(0.5);
    let mut graph = PoseGraph::new(&model, &held(0.5)).unwrap();
    for (step, dt) in [0.0, 0.3, 0.7, 1.9].into_iter().enumerate() {
        graph.advance(&model, dt).unwrap();
        close(graph.local_pose(), &expected, &format!("after step {step}"));
    }
    graph.seek(&model, 1.25).unwrap();
    close(graph.local_pose(), &expected, "after a seek");
    // Without the hold the same layer plays on: after 0.3 s it is not the 0.5 s pose.
    let mut playing = held(0.5);
    playing.layers[0].hold = None;
    let mut graph = PoseGraph::new(&model, &playing).unwrap();
    graph.advance(&model, 0.3).unwrap();
    close(graph.local_pose(), &wave_at(0.3), "playing");
    // Past the end: the last frame.
    let end = model.clips[wave].duration_secs();
    let mut graph = PoseGraph::new(&model, &held(end + 5.0)).unwrap();
    graph.advance(&model, 0.1).unwrap();
    close(graph.local_pose(), &wave_at(end), "past the end");
    let e = PoseGraph::new(&model, &held(f32::NAN))
        .unwrap_err()
        .to_string();
    assert!(e.contains("layer 'pose'") && e.contains("hold"), "{e}");
}

/// A clip player's marker crossings, against the markers' times worked out by hand: a
/// small step, a step over several wraps (in time order within each cycle), a reverse
/// step, and steps a million cycles in.
#[test]
fn clip_players_fire_each_crossed_marker_once_in_time_order() {
    use stridescope::anim::{Clip, Interpolation, JointTracks, Skeleton, Track, Transform};
    use stridescope::graph::ClipPlayer;
    let skeleton =
        Skeleton::new(vec!["root".into()], vec![None], vec![Transform::IDENTITY]).unwrap();
    let mut root = JointTracks::new(0);
    root.translation = Some(
        Track::new(
            Interpolation::Linear,
            vec![0.0, 1.0],
            vec![glam::Vec3::ZERO, glam::Vec3::X],
            "t",
        )
        .unwrap(),
    );
    let marker = |name: &str, time_secs: f32| SyncMarker {
        name: name.into(),
        time_secs,
    };
    // Given out of order: the clip sorts them by time.
    let markers = vec![marker("c", 0.9), marker("a", 0.1), marker("b", 0.5)];
    let clip = Clip::new("clip".into(), vec![root], markers, 1).unwrap();
    let clips = [clip];
    let mut player = ClipPlayer::new(
        &skeleton,
        &clips,
        0,
        None,
        (clips[0].markers().to_vec(), false),
    )
    .unwrap();
    let step = |player: &mut ClipPlayer, secs: f64| -> Vec<String> {
        player.advance(secs).unwrap();
        let mut out = Vec::new();
        player.for_each_crossed(|n| out.push(n.to_string()));
        out
    };
    // 0 -> 0.35: a at 0.1.
    assert_eq!(step(&mut player, 0.35), ["a"]);
    // 0.35 -> 2.85: b, c; a, b, c; a, b.
    assert_eq!(step(&mut player, 2.5), ["b", "c", "a", "b", "c", "a", "b"]);
    // Back 2.85 -> 2.35: b at 2.5.
    assert_eq!(step(&mut player, -0.5), ["b"]);
    // Far away: seek to cycle 1,000,000 at 0.05 s (a seek fires nothing), then 0.05 ->
    // 0.15 crosses a at 0.1 once, and 0.15 -> 0.45 nothing.
    player.seek_phase(1_000_000, 0.05).unwrap();
    assert!(step(&mut player, 0.0).is_empty());
    assert_eq!(step(&mut player, 0.1), ["a"]);
    assert!(step(&mut player, 0.3).is_empty());
}
