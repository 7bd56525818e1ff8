//! Motion matching (issue 11): the database, both searches, continuity, the controller,
//! inertialized jumps, the session's replay, the disk cache and `trace --motion-matching`.

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2};
use stridescope::anim::motion_matching::{
    search_accelerated, search_accelerated_counted, search_brute_force, search_reference, Database,
    DropReason, FeatureGroup, MatcherInput, Playing, SearchParams, SpringCharacter, SpringSettings,
    FEATURE_GROUPS,
};
use stridescope::anim::{GroundTransform, LocalToModelJob, Transform};
use stridescope::asset::{self, demo, Model};
use stridescope::stage::matching::cache::{cache_path, CacheOutcome};
use stridescope::stage::matching::{ClipSet, MatchingDef, MatchingSession};

fn set_model() -> Model {
    asset::load_from_slice(
        &demo::locomotion_set_glb(),
        Path::new(demo::LOCOMOTION_SET_NAME),
    )
    .expect("locomotion set loads")
}

fn database(model: &Model, def: &MatchingDef) -> (ClipSet, Database) {
    let set = ClipSet::new(model, def).unwrap();
    let db = Database::build(
        &model.skeleton,
        &set.joints,
        &set.sources(model),
        &set.settings,
    )
    .unwrap();
    (set, db)
}

/// A small deterministic generator (xorshift64*), so random queries repeat exactly.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn normal(&mut self) -> f32 {
        // Sum of 4 uniforms, centred: close enough to a bell for test queries.
        (0..4).map(|_| self.unit()).sum::<f32>() - 2.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The best frame for `q`, with no continuity rule, tag or bias.
fn plain(q: &[f32]) -> SearchParams<'_> {
    SearchParams::plain(q, 1)
}

fn brute(db: &Database, q: &[f32]) -> Vec<stridescope::anim::motion_matching::Candidate> {
    search_brute_force(db, &plain(q))
}

#[test]
fn locomotion_set_has_the_clips_the_issue_names() {
    let model = set_model();
    let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    for n in [
        "Idle",
        "Walk",
        "Run",
        "WalkTurnLeft",
        "WalkTurnRight",
        "WalkTurnLeftSharp",
        "WalkTurnRightSharp",
        "RunTurnLeft",
        "RunTurnRight",
        "StrafeLeft",
        "StrafeRight",
        "WalkStart",
        "WalkStop",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let (set, _) = database(&model, &MatchingDef::default());
    let by_name = |n: &str| {
        set.clips
            .iter()
            .find(|c| model.clips[c.model_clip].name() == n)
            .unwrap()
    };
    // Cyclic clips loop, starts and stops do not; the set's speeds are the design's.
    assert!(by_name("Walk").looping && by_name("StrafeLeft").looping);
    assert!(!by_name("WalkStart").looping && !by_name("WalkStop").looping);
    assert!((by_name("Walk").speed_mps - 1.4 / 1.1).abs() < 1e-3);
    assert!((by_name("Run").speed_mps - 3.5 / 0.7).abs() < 1e-3);
    assert!((by_name("StrafeLeft").speed_mps - 0.8 / 1.1).abs() < 1e-3);
    // A strafe travels sideways while facing forward: +X for the left one.
    let strafe = by_name("StrafeLeft").root.as_ref().unwrap();
    let d = strafe.motion.cycle_displacement();
    assert!((d.translation.x - 0.8).abs() < 1e-4 && d.translation.y.abs() < 1e-4);
    assert!(d.yaw_rad.abs() < 1e-9);
    let sharp = by_name("WalkTurnRightSharp").root.as_ref().unwrap();
    assert!((sharp.motion.cycle_displacement().yaw_rad + std::f64::consts::FRAC_PI_2).abs() < 1e-4);
    // The stop ends standing: no root motion over its last 0.3 s.
    let stop = by_name("WalkStop").root.as_ref().unwrap();
    let end = model.clips[by_name("WalkStop").model_clip].duration_secs() as f64;
    let tail = stop
        .motion
        .sample(end - 0.3)
        .inverse()
        .compose(&stop.motion.sample(end));
    assert!(tail.translation.length() < 1e-6, "{tail:?}");
}

#[test]
fn features_are_in_root_space_with_known_values() {
    let model = set_model();
    // Unsmoothed: the root frame itself (smoothing has its own test below).
    let def = MatchingDef {
        root_smoothing_secs: 0.0,
        ..MatchingDef::default()
    };
    let (set, db) = database(&model, &def);
    let walk = set.find(&model, "walk").unwrap();
    let f = db.clips()[walk].first_frame;
    let raw = db.raw_features(f);
    // Future trajectory of the straight walk at 0.33 / 0.66 / 1.0 s: straight ahead (+Z),
    // as far as the root goes in that time (the speed profile: 0.6, 1.2, 1.0 x mean).
    let pos = db.group_range(FeatureGroup::TrajectoryPosition);
    let dir = db.group_range(FeatureGroup::TrajectoryDirection);
    let root = set.clips[walk].root.as_ref().unwrap();
    // Features are turned to where the body faces in the root frame: the planner's walk
    // faces straight ahead (its hips' sway averages out to well under 0.01 degrees).
    let facing = set.clips[walk].facing_yaw_rad as f64;
    assert!(facing.to_degrees().abs() < 0.01, "{}", facing.to_degrees());
    for (k, tau) in [0.33f64, 0.66, 1.0].into_iter().enumerate() {
        let expected = GroundTransform::rotate(
            -facing,
            root.motion.delta_secs(0.0, tau).unwrap().translation,
        );
        assert!((raw[pos.start + 2 * k] as f64 - expected.x).abs() < 1e-5);
        assert!((raw[pos.start + 2 * k + 1] as f64 - expected.y).abs() < 1e-5);
        assert!(
            raw[dir.start + 2 * k].abs() < 1e-6 && (raw[dir.start + 2 * k + 1] - 1.0).abs() < 1e-6
        );
    }
    // The walk covers 1.4 m per 1.1 s cycle: 1 s ahead is between 1.1 and 1.4 m.
    assert!(raw[pos.start + 5] > 1.1 && raw[pos.start + 5] < 1.4);
    // Frame 10 of the walk (phase 0.3): the left foot is in its stance (phase 0 to 0.6),
    // so its world velocity (root motion included) is about zero; the right one swings
    // (0.6 to 1.0 of its cycle, half a cycle later) and passes the root.
    let raw = db.raw_features(f + 10);
    let fp = db.group_range(FeatureGroup::FootPosition);
    let fv = db.group_range(FeatureGroup::FootVelocity);
    let left_speed = Vec2::new(raw[fv.start], raw[fv.start + 2]).length();
    assert!(
        left_speed < 0.25,
        "planted left foot moves at {left_speed} m/s"
    );
    assert!(
        raw[fp.start].abs() > 0.05,
        "left foot beside the path: {}",
        raw[fp.start]
    );
    // The right foot swings forward: faster than the root.
    let right_speed = Vec2::new(raw[fv.start + 3], raw[fv.start + 5]).length();
    assert!(right_speed > 1.27, "swing foot at {right_speed} m/s");
    // Idle stands: no trajectory at all.
    let idle = set.find(&model, "idle").unwrap();
    let raw = db.raw_features(db.clips()[idle].first_frame + 10);
    for k in pos
        .clone()
        .chain(db.group_range(FeatureGroup::PastPosition))
    {
        assert!(raw[k].abs() < 1e-6, "idle trajectory {k}: {}", raw[k]);
    }
    // A turn's facing 1 s ahead has turned by 30° per 1.1 s.
    let turn = set.find(&model, "walkturnleft").unwrap();
    let raw = db.raw_features(db.clips()[turn].first_frame);
    let yaw = raw[dir.start + 4].atan2(raw[dir.start + 5]).to_degrees();
    assert!((yaw - 30.0 / 1.1).abs() < 0.5, "turn yaw after 1 s: {yaw}");
}

#[test]
fn a_database_frame_is_found_with_cost_zero() {
    let model = set_model();
    let (_, db) = database(&model, &MatchingDef::default());
    for f in (0..db.frame_count()).step_by(7) {
        if !db.frames()[f].candidate {
            continue;
        }
        let q = db.frame_features(f).to_vec();
        let best = brute(&db, &q);
        assert_eq!(best[0].cost, 0.0, "frame {f}");
        assert_eq!(best[0].frame, f, "frame {f}");
        let fast = search_accelerated(&db, &plain(&q));
        assert_eq!(fast, best);
    }
}

#[test]
fn normalisation_gives_each_group_unit_variance() {
    let model = set_model();
    let def = MatchingDef {
        weights: stridescope::stage::matching::WeightsDef::from_array([1.0; 6]),
        ..MatchingDef::default()
    };
    let (_, db) = database(&model, &def);
    let n = db.frame_count() as f64;
    for g in FEATURE_GROUPS {
        let r = db.group_range(g);
        assert!(!r.is_empty(), "{g:?}");
        let mut var_sum = 0.0;
        for d in r.clone() {
            let mean = (0..db.frame_count())
                .map(|f| db.frame_features(f)[d] as f64)
                .sum::<f64>()
                / n;
            assert!(mean.abs() < 1e-4, "{g:?} dim {d}: mean {mean}");
            var_sum += (0..db.frame_count())
                .map(|f| (db.frame_features(f)[d] as f64 - mean).powi(2))
                .sum::<f64>()
                / n;
        }
        let var = var_sum / r.len() as f64;
        assert!((var - 1.0).abs() < 1e-4, "{g:?}: mean variance {var}");
    }
    // A weight of 4 scales the group's variance by 4 (weights multiply squared costs).
    let mut db4 = db.clone();
    let mut w = [1.0; 6];
    w[3] = 4.0;
    db4.set_weights(w).unwrap();
    let r = db4.group_range(FeatureGroup::TrajectoryPosition);
    let f = 5;
    for d in r {
        assert!((db4.frame_features(f)[d] - 2.0 * db.frame_features(f)[d]).abs() < 1e-5);
    }
}

#[test]
fn weights_change_the_winner() {
    let model = set_model();
    let (set, mut db) = database(&model, &MatchingDef::default());
    // The pose of an idle frame with the trajectory of a run frame.
    let idle = db.clips()[set.find(&model, "idle").unwrap()].first_frame + 15;
    let run = db.clips()[set.find(&model, "run").unwrap()].first_frame + 5;
    let mut raw = db.raw_features(idle).to_vec();
    for g in [
        FeatureGroup::TrajectoryPosition,
        FeatureGroup::TrajectoryDirection,
        FeatureGroup::PastPosition,
    ] {
        let r = db.group_range(g);
        raw[r.clone()].copy_from_slice(&db.raw_features(run)[r]);
    }
    let winner = |db: &mut Database, pose: f32, traj: f32| {
        db.set_weights([pose, pose, pose, traj, traj, traj])
            .unwrap();
        let mut q = vec![0.0; db.dims()];
        db.normalize_into(&raw, &mut q);
        let best = brute(db, &q)[0].frame;
        db.clips()[db.frames()[best].source as usize].name.clone()
    };
    let pose_heavy = winner(&mut db, 10.0, 0.01);
    let traj_heavy = winner(&mut db, 0.01, 10.0);
    assert_eq!(pose_heavy, "Idle");
    assert!(
        traj_heavy.starts_with("Run"),
        "trajectory-weighted winner {traj_heavy}"
    );
}

/// The edges of the block and box searches: databases of a few frames (a last block,
/// small box and large box only partly filled; fewer frames than one block), lists longer
/// than the frames that qualify, large clip biases both ways, an exclusion window over a
/// whole clip: the three searches still return the reference's list.
#[test]
fn the_searches_agree_on_tiny_databases_and_extreme_settings() {
    let model = set_model();
    let mut rng = Rng(0x0dd_ba11_5eed);
    for (clips, rate) in [
        (vec!["Idle"], 2.0),
        (vec!["Walk"], 5.0),
        (vec![], 3.0),
        (vec![], 9.0),
    ] {
        let def = MatchingDef {
            clips: clips.iter().map(|c| c.to_string()).collect(),
            sample_rate_hz: rate,
            ..MatchingDef::default()
        };
        let (_, db) = database(&model, &def);
        let n = db.frame_count();
        assert!(n < 200, "{n} frames");
        for i in 0..300 {
            let base = rng.below(n);
            let q: Vec<f32> = db
                .frame_features(base)
                .iter()
                .map(|v| v + 0.5 * rng.normal())
                .collect();
            let p = SearchParams {
                query: &q,
                playing: (i % 4 != 0).then(|| Playing {
                    source: rng.below(db.clips().len()),
                    time_secs: rng.unit() * 2.0,
                }),
                current_clip_bias: [-5.0, 5.0, -0.5, 0.0][i % 4],
                exclude_window_secs: [0.0, 0.3, 100.0][i % 3],
                require_tags: 0,
                exclude_tags: 0,
                top_n: [1, 8, n + 5][i % 3],
            };
            let want = search_reference(&db, &p);
            assert_eq!(
                search_brute_force(&db, &p),
                want,
                "{clips:?} at {rate} Hz, query {i}"
            );
            assert_eq!(
                search_accelerated(&db, &p),
                want,
                "{clips:?} at {rate} Hz, query {i}"
            );
        }
    }
    // A clip bias that is not a number finds nothing (rather than three different lists).
    let (_, db) = database(&model, &MatchingDef::default());
    let q = db.frame_features(3).to_vec();
    let p = SearchParams {
        current_clip_bias: f32::NAN,
        ..SearchParams::plain(&q, 4)
    };
    assert!(search_reference(&db, &p).is_empty());
    assert!(search_accelerated(&db, &p).is_empty());
}

#[test]
fn all_three_searches_return_the_reference_list_on_10000_random_queries() {
    let model = set_model();
    let (_, db) = database(&model, &MatchingDef::default());
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let tags = db.tag_names().len();
    let (mut scored, mut found) = (0usize, 0usize);
    for i in 0..10_000 {
        // A database frame plus noise (most queries near the data, as at run time), or
        // pure noise now and then.
        let base = rng.below(db.frame_count());
        let noise = if i % 10 == 0 { 3.0 } else { 0.3 };
        let q: Vec<f32> = db
            .frame_features(base)
            .iter()
            .map(|v| if i % 10 == 0 { 0.0 } else { *v } + noise * rng.normal())
            .collect();
        let playing = (i % 3 != 0).then(|| Playing {
            source: rng.below(db.clips().len()),
            time_secs: rng.unit() * 2.0,
        });
        let require = if i % 7 == 0 && tags > 0 {
            1 << rng.below(tags)
        } else {
            0
        };
        let params = SearchParams {
            query: &q,
            playing,
            current_clip_bias: [0.0, -0.5, 0.3][i % 3],
            exclude_window_secs: [0.0, 0.2, 0.5][i % 3],
            require_tags: require,
            exclude_tags: if i % 11 == 0 && tags > 1 { 2 } else { 0 },
            top_n: [1, 3, 8][i % 3],
        };
        let a = search_reference(&db, &params);
        // The block search: the same costs (bit for bit: `Candidate` compares the floats).
        assert_eq!(a, search_brute_force(&db, &params), "query {i}");
        let (b, visited) = search_accelerated_counted(&db, &params);
        assert_eq!(a, b, "query {i}");
        scored += visited;
        found += !a.is_empty() as usize;
    }
    assert!(found > 9_000, "{found} queries found a frame");
    // The boxes did prune: fewer frames scored than brute force's 10,000 x all.
    let share = scored as f64 / (10_000.0 * db.frame_count() as f64);
    assert!(share < 0.8, "scored {:.0}% of the frames", share * 100.0);
    // Exact copies tie: both searches keep the lowest frame indices, in the same order.
    let copies = db.repeated(3, 0.0);
    assert_eq!(copies.frame_count(), 3 * db.frame_count());
    for i in 0..1000 {
        let base = rng.below(db.frame_count());
        let q: Vec<f32> = db
            .frame_features(base)
            .iter()
            .map(|v| v + 0.2 * rng.normal())
            .collect();
        let p = SearchParams {
            top_n: 8,
            ..plain(&q)
        };
        let a = search_reference(&copies, &p);
        assert_eq!(a, search_brute_force(&copies, &p), "query {i}");
        assert_eq!(a, search_accelerated(&copies, &p), "query {i}");
        // The best frame's two copies follow it, each a whole database later.
        let n = db.frame_count();
        assert_eq!(
            (a[1].frame, a[2].frame),
            (a[0].frame + n, a[0].frame + 2 * n)
        );
        assert!(a[0].cost == a[1].cost && a[1].cost == a[2].cost);
    }
}

fn walk_session(def: MatchingDef) -> (Model, MatchingSession) {
    let model = set_model();
    let s = MatchingSession::new(&model, def, None).unwrap();
    (model, s)
}

fn walk_input(speed: f32, heading_deg: f32) -> MatcherInput {
    let h = heading_deg.to_radians();
    MatcherInput {
        desired_velocity: Vec2::new(h.sin(), h.cos()) * speed,
        desired_yaw: h,
        ..Default::default()
    }
}

#[test]
fn straight_walk_plays_the_walk_and_follows_the_path() {
    // No drift clamp: the error is the raw distance from the simulated path.
    let def = MatchingDef {
        drift_clamp_m: None,
        ..MatchingDef::default()
    };
    let (model, mut s) = walk_session(def);
    let walk = s.walk_speed_mps;
    assert!((walk - 1.4 / 1.1).abs() < 1e-3);
    let mut walk_frames = 0;
    let mut late = 0;
    let mut max_error = 0.0f32;
    for i in 0..=600 {
        let f = s.step(&model, &walk_input(walk, 0.0)).unwrap().clone();
        if f.wall_secs >= 3.0 {
            late += 1;
            walk_frames += (model.clips[f.clip].name() == "Walk") as usize;
            max_error = max_error.max(f.trajectory_error_m);
            // Facing and heading stay on the path.
            assert!(f.world_from_root.yaw_rad.abs() < 0.05, "frame {i}");
            assert!(f.world_from_root.translation.x.abs() < 0.15, "frame {i}");
        }
    }
    assert!(
        walk_frames * 10 >= late * 9,
        "walk for {walk_frames} of {late} frames"
    );
    // The simulation leads by the start's ramp-up; the bound is 0.75 m (a little over
    // half a stride) and the measured value is about 0.6 m.
    assert!(max_error < 0.75, "trajectory error {max_error} m");
}

#[test]
fn continuing_bias_keeps_playing_through_a_constant_input() {
    // Walking 30° to the side of the facing matches no clip exactly: without a bias the
    // matcher keeps hopping between near-equal frames.
    let count_late_jumps = |bias: f32| {
        let def = MatchingDef {
            continuing_bias: bias,
            ..MatchingDef::default()
        };
        let (model, mut s) = walk_session(def);
        let walk = s.walk_speed_mps;
        let mut jumps = 0;
        for _ in 0..=900 {
            let mut input = walk_input(walk, 30.0);
            input.desired_yaw = 0.0;
            let f = s.step(&model, &input).unwrap();
            if f.wall_secs > 4.0 && f.jumped {
                jumps += 1;
            }
        }
        jumps
    };
    assert_eq!(count_late_jumps(MatchingDef::default().continuing_bias), 0);
    assert!(count_late_jumps(0.0) >= 10);
}

#[test]
fn no_jump_before_the_minimum_dwell() {
    let def = MatchingDef {
        min_dwell_secs: 0.5,
        continuing_bias: 0.0,
        ..MatchingDef::default()
    };
    let (model, mut s) = walk_session(def);
    let (walk, run) = (s.walk_speed_mps, s.run_speed_mps);
    let mut last_jump: Option<f64> = None;
    let mut jumps = 0;
    for i in 0..=1200 {
        // A restless input: direction and speed change every 0.2 s.
        let k = i / 12;
        let input = walk_input(if k % 3 == 0 { run } else { walk }, (k % 8) as f32 * 45.0);
        let before = s.matcher().state().clone();
        let f = s.step(&model, &input).unwrap().clone();
        if f.jumped {
            jumps += 1;
            let src = &s.set.clips[before.source];
            let ended = !src.looping
                && before.time_secs + s.dt_secs
                    >= model.clips[src.model_clip].duration_secs() as f64 - 1e-9;
            if let (Some(t), false) = (last_jump, ended) {
                assert!(
                    f.wall_secs - t >= 0.5 - 1e-6,
                    "jump at {} s after {t}",
                    f.wall_secs
                );
            }
            last_jump = Some(f.wall_secs);
        }
    }
    assert!(jumps > 10, "only {jumps} jumps");
}

/// Model-space joint positions of a local pose.
fn positions(model: &Model, pose: &[Transform]) -> Vec<glam::Vec3> {
    let mut m = vec![Mat4::IDENTITY; pose.len()];
    LocalToModelJob {
        parents: model.skeleton.parents(),
        local: pose,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut m)
    .unwrap();
    m.iter().map(|x| x.w_axis.truncate()).collect()
}

/// Per frame, the largest change of any joint's model-space velocity from the previous
/// frame (m/s), and whether a jump happened in that frame or the two before it.
fn velocity_steps(half_life: f32) -> (Vec<(f32, bool)>, usize) {
    // A light continuing bias and no foot lock: many jumps, and the pose as the
    // inertializer leaves it.
    let def = MatchingDef {
        half_life_secs: half_life,
        continuing_bias: 0.0,
        foot_lock: false,
        ..MatchingDef::default()
    };
    let (model, mut s) = walk_session(def);
    let (walk, run) = (s.walk_speed_mps, s.run_speed_mps);
    let dt = s.dt_secs as f32;
    let mut history: Vec<Vec<glam::Vec3>> = Vec::new();
    let mut jumped = Vec::new();
    let mut out = Vec::new();
    for i in 0..=900 {
        // Walk around a square, running one side in three: many jumps.
        let k = i / 45;
        let input = walk_input(if k % 3 == 2 { run } else { walk }, (k % 4) as f32 * 90.0);
        jumped.push(s.step(&model, &input).unwrap().jumped);
        history.push(positions(&model, s.pose()));
        let n = history.len();
        if n >= 3 && i > 2 {
            let mut worst = 0.0f32;
            let (a, b, c) = (&history[n - 3], &history[n - 2], &history[n - 1]);
            for ((p0, p1), p2) in a.iter().zip(b).zip(c) {
                let (v1, v2) = ((*p1 - *p0) / dt, (*p2 - *p1) / dt);
                worst = worst.max((v2 - v1).length());
            }
            out.push((worst, jumped[n - 3..].iter().any(|&j| j)));
        }
    }
    let jumps = jumped.iter().filter(|&&j| j).count();
    (out, jumps)
}

#[test]
fn inertialized_jumps_have_no_pose_or_velocity_pop() {
    let (steps, jumps) = velocity_steps(0.1);
    // Walk and run sides with four turns each lap: jumps between every kind of clip
    // (7 measured: the play rate and the adjustment keep playing clips on the path).
    assert!(jumps >= 6, "{jumps} jumps");
    let near = steps
        .iter()
        .filter(|s| s.1)
        .map(|s| s.0)
        .fold(0.0f32, f32::max);
    let away = steps
        .iter()
        .filter(|s| !s.1)
        .map(|s| s.0)
        .fold(0.0f32, f32::max);
    // Around a jump no joint's velocity changes by more than 3 m/s from one frame to the
    // next, less than the motion itself does elsewhere (`away`: the run's swinging foot,
    // about 5.7 m/s).
    assert!(near < 3.0, "velocity step {near} m/s around a jump");
    assert!(near < away, "around jumps {near} m/s, elsewhere {away} m/s");
    // A half-life of 0.1 ms is no inertialization: the same kind of jumps pop by far more
    // than the motion itself ever changes.
    let (steps, _) = velocity_steps(1e-4);
    let popping = steps
        .iter()
        .filter(|s| s.1)
        .map(|s| s.0)
        .fold(0.0f32, f32::max);
    assert!(
        popping > 3.0 * near && popping > away,
        "without it: {popping} m/s"
    );
}

#[test]
fn a_90_degree_turn_picks_the_turn_clips() {
    let (model, mut s) = walk_session(MatchingDef::default());
    let walk = s.walk_speed_mps;
    let mut turn_secs = 0.0;
    for i in 0..=480 {
        let heading = if i < 240 { 0.0 } else { 90.0 };
        let f = s.step(&model, &walk_input(walk, heading)).unwrap().clone();
        if (240..360).contains(&i) && model.clips[f.clip].name().contains("TurnLeft") {
            turn_secs += s.dt_secs;
        }
        if i == 480 {
            let yaw = f.world_from_root.yaw_rad.to_degrees();
            assert!((yaw - 90.0).abs() < 3.0, "facing {yaw} deg after the turn");
        }
    }
    assert!(turn_secs >= 0.4, "turn clips played {turn_secs} s");
}

#[test]
fn spring_prediction_is_exact_and_settles() {
    let settings = SpringSettings::default();
    let mut c = SpringCharacter::new(Vec2::ZERO, 0.0, settings);
    let goal = Vec2::new(0.0, 1.5);
    let predicted = c.predict(goal, 1.0, 1.0);
    // Sixty steps of 1/60 s land where one prediction of 1 s does.
    for _ in 0..60 {
        c.update(goal, 1.0, 1.0 / 60.0);
    }
    assert!((c.position - predicted.position).length() < 1e-4);
    assert!((c.yaw - predicted.yaw).abs() < 1e-5);
    // The position is the velocity's integral: trapezoids over 1 ms agree.
    let start = SpringCharacter::new(Vec2::ZERO, 0.0, settings);
    let mut x = Vec2::ZERO;
    let mut prev = start.velocity;
    for i in 1..=1000 {
        let v = start.predict(goal, 1.0, i as f32 / 1000.0).velocity;
        x += (prev + v) * 0.0005;
        prev = v;
    }
    assert!(
        (x - predicted.position).length() < 1e-4,
        "{x} vs {}",
        predicted.position
    );
    // Critically damped: after 5 half-lives the velocity is within 1% of the goal and
    // it never overshoots.
    let mut c = SpringCharacter::new(Vec2::ZERO, 0.0, settings);
    for _ in 0..(5.0 * settings.velocity_half_life_secs * 1000.0) as usize {
        c.update(goal, 0.0, 0.001);
        assert!(c.velocity.y <= 1.5 + 1e-5);
    }
    assert!((c.velocity.y - 1.5).abs() < 0.015 * 1.5, "{}", c.velocity.y);
}

#[test]
fn replaying_a_recorded_frame_shows_exactly_what_was_shown() {
    let (model, mut s) = walk_session(MatchingDef::default());
    let (walk, run) = (s.walk_speed_mps, s.run_speed_mps);
    let mut shown = Vec::new();
    for i in 0..300 {
        let k = i / 50;
        let input = walk_input(if k == 3 { run } else { walk }, (k % 3) as f32 * 60.0);
        let f = s.step(&model, &input).unwrap().clone();
        shown.push((f, s.pose().to_vec()));
    }
    for idx in [0usize, 1, 59, 60, 61, 137, 250, 298] {
        s.seek(&model, idx).unwrap();
        assert_eq!(s.viewed(), Some(idx));
        assert_eq!(s.current().unwrap(), &shown[idx].0, "frame {idx}");
        assert_eq!(s.pose(), &shown[idx].1[..], "pose of frame {idx}");
        assert_eq!(s.world_from_root(), shown[idx].0.world_from_root);
    }
    // Playing on after a scrub continues live from the newest frame.
    s.seek(&model, 10).unwrap();
    let f = s.step(&model, &walk_input(walk, 0.0)).unwrap();
    assert_eq!(f.frame, 300);
    assert_eq!(s.viewed(), None);
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("stridescope-mm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_database_is_cached_in_the_users_cache_folder() {
    let dir = temp_dir("cache");
    let file = dir.join("set.glb");
    std::fs::write(&file, demo::locomotion_set_glb()).unwrap();
    let model = asset::load(&file).unwrap();
    let first = MatchingSession::new(&model, MatchingDef::default(), Some(&file)).unwrap();
    assert_eq!(first.cache, CacheOutcome::Written(cache_path(&file)));
    // Not beside the user's file (issue 22): in the cache folder, named after the file.
    let cached = cache_path(&file);
    assert!(
        cached.starts_with(stridescope::stage::matching::cache::cache_dir()),
        "{}",
        cached.display()
    );
    assert!(cached.exists());
    assert!(cached
        .file_name()
        .unwrap()
        .to_string_lossy()
        .ends_with("-set.glb.stridescope-mm"));
    let beside: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(beside, [std::ffi::OsString::from("set.glb")]);
    let second = MatchingSession::new(&model, MatchingDef::default(), Some(&file)).unwrap();
    assert_eq!(second.cache, CacheOutcome::Loaded(cache_path(&file)));
    assert_eq!(first.db, second.db);
    // A different weight is a different database: rebuilt, and the cache rewritten.
    let mut def = MatchingDef::default();
    def.weights.foot_velocity = 2.0;
    let third = MatchingSession::new(&model, def.clone(), Some(&file)).unwrap();
    assert_eq!(third.cache, CacheOutcome::Written(cache_path(&file)));
    // A corrupt cache is rebuilt, never trusted.
    let bytes = std::fs::read(cache_path(&file)).unwrap();
    for cut in [0, 10, 17, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(cache_path(&file), &bytes[..cut]).unwrap();
        let s = MatchingSession::new(&model, def.clone(), Some(&file)).unwrap();
        assert_eq!(
            s.cache,
            CacheOutcome::Written(cache_path(&file)),
            "cut at {cut}"
        );
        assert_eq!(s.db, third.db);
    }
    // A damaged feature (the key still matches) fails the checksum: rebuilt.
    let n = bytes.len();
    for at in [40, n / 2, n - 12] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x40;
        std::fs::write(cache_path(&file), &flipped).unwrap();
        let s = MatchingSession::new(&model, def.clone(), Some(&file)).unwrap();
        assert_eq!(
            s.cache,
            CacheOutcome::Written(cache_path(&file)),
            "flip at {at}"
        );
        assert_eq!(s.db, third.db);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.gltf` keeps its keys in an external `.bin`: changing only the `.bin` must change
/// the key, so the cache is rebuilt.
#[test]
fn the_cache_key_covers_external_buffers() {
    let dir = temp_dir("cache-gltf");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Fox");
    for f in ["Fox.gltf", "Fox.bin", "Texture.png"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let file = dir.join("Fox.gltf");
    let model = asset::load(&file).unwrap();
    let first = MatchingSession::new(&model, MatchingDef::default(), Some(&file)).unwrap();
    assert_eq!(first.cache, CacheOutcome::Written(cache_path(&file)));
    let again = MatchingSession::new(&model, MatchingDef::default(), Some(&file)).unwrap();
    assert_eq!(again.cache, CacheOutcome::Loaded(cache_path(&file)));
    // Nudge the first output value of the Walk's first sampler by 0.01 (the set is Walk
    // and Run: "Survey" is not a locomotion name, and changing it changes nothing).
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let walk = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "Walk")
        .unwrap();
    let output = walk["samplers"][0]["output"].as_u64().unwrap() as usize;
    let accessor = &json["accessors"][output];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let at = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
    let mut bin = std::fs::read(dir.join("Fox.bin")).unwrap();
    let v = f32::from_le_bytes(bin[at..at + 4].try_into().unwrap()) + 0.01;
    bin[at..at + 4].copy_from_slice(&v.to_le_bytes());
    std::fs::write(dir.join("Fox.bin"), &bin).unwrap();
    let changed = asset::load(&file).unwrap();
    let third = MatchingSession::new(&changed, MatchingDef::default(), Some(&file)).unwrap();
    assert_eq!(third.cache, CacheOutcome::Written(cache_path(&file)));
    assert_ne!(
        stridescope::stage::matching::cache::content_key(&model, &first.set),
        stridescope::stage::matching::cache::content_key(&changed, &third.set)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn settings_edits_apply_or_change_nothing() {
    let (model, mut s) = walk_session(MatchingDef::default());
    let walk = s.walk_speed_mps;
    for _ in 0..120 {
        s.step(&model, &walk_input(walk, 0.0)).unwrap();
    }
    let before = s.world_from_root();
    // A refused value (half-life 0) leaves everything as it was, weights included.
    let mut bad = s.def.clone();
    bad.half_life_secs = 0.0;
    bad.weights.foot_position = 3.0;
    let e = s.apply_def(&model, bad).unwrap_err().to_string();
    assert!(e.contains("half_life_secs"), "{e}");
    assert_eq!(s.db.weights(), MatchingDef::default().weights.to_array());
    assert_eq!(s.frames().len(), 120);
    // A runtime setting: the recording starts over from the shown pose.
    let mut dwell = s.def.clone();
    dwell.min_dwell_secs = 0.5;
    s.apply_def(&model, dwell).unwrap();
    assert_eq!(s.frames().len(), 0);
    assert_eq!(s.world_from_root(), before);
    // What the database holds (here the sample rate): rebuilt, back at the origin.
    let mut rate = s.def.clone();
    rate.sample_rate_hz = 20.0;
    s.apply_def(&model, rate).unwrap();
    assert_eq!(s.db.settings().sample_rate_hz, 20.0);
    assert!(
        s.db.frame_count() < 400,
        "{} frames at 20 Hz",
        s.db.frame_count()
    );
    assert_eq!(s.world_from_root().translation, glam::DVec2::ZERO);
    assert_eq!(s.def.min_dwell_secs, 0.5);
}

#[test]
fn the_robot_is_a_second_set() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb");
    let model = asset::load(&path).unwrap();
    let mut s = MatchingSession::new(&model, MatchingDef::default(), None).unwrap();
    let names: Vec<String> = s.db.clips().iter().map(|c| c.name.clone()).collect();
    assert!(names.contains(&"Robot_Walking".to_string()), "{names:?}");
    assert!(names.contains(&"Robot_Running".to_string()), "{names:?}");
    // In place: it moves at the speed its feet imply (the rig is 4.4 units tall).
    let walk = s.walk_speed_mps;
    assert!(walk > 1.5, "implied walk speed {walk}");
    let mut walking = 0;
    for i in 0..=360 {
        let f = s.step(&model, &walk_input(walk, 0.0)).unwrap();
        if i > 120 && model.clips[f.clip].name().contains("Walk") {
            walking += 1;
        }
    }
    assert!(walking > 200, "walked {walking} of 240 frames");
    let z = s.world_from_root().translation.y;
    assert!(z > walk as f64 * 4.0, "went {z} units in 6 s at {walk}");
}

#[test]
fn bad_settings_and_clip_names_are_clear_errors() {
    let model = set_model();
    let err = |def: MatchingDef| {
        MatchingSession::new(&model, def, None)
            .err()
            .unwrap()
            .to_string()
    };
    let e = err(MatchingDef {
        clips: vec!["Walk".into(), "Moonwalk".into()],
        ..MatchingDef::default()
    });
    assert!(e.contains("'Moonwalk'"), "{e}");
    let e = err(MatchingDef {
        sample_rate_hz: 0.0,
        ..MatchingDef::default()
    });
    assert!(e.contains("sample_rate_hz"), "{e}");
    let e = err(MatchingDef {
        future_secs: vec![],
        ..MatchingDef::default()
    });
    assert!(e.contains("future_secs"), "{e}");
    let e = err(MatchingDef {
        half_life_secs: -1.0,
        ..MatchingDef::default()
    });
    assert!(e.contains("half_life_secs"), "{e}");
    let mut w = MatchingDef::default();
    w.weights.hip_velocity = f32::NAN;
    assert!(err(w).contains("weights"));
    let e = err(MatchingDef {
        tags: vec![stridescope::stage::matching::TagDef {
            tag: "stop".into(),
            clip: "Nope".into(),
            start_secs: None,
            end_secs: None,
            optional: false,
        }],
        ..MatchingDef::default()
    });
    assert!(e.contains("'Nope'"), "{e}");
}

#[test]
fn tags_constrain_the_jump_targets() {
    let (model, mut s) = walk_session(MatchingDef::default());
    let tags = s.db.tag_names().to_vec();
    let stop = 1u32 << tags.iter().position(|t| t == "stop").unwrap();
    let strafe = 1u32 << tags.iter().position(|t| t == "strafe").unwrap();
    let walk = s.walk_speed_mps;
    for i in 0..=300 {
        let mut input = walk_input(walk, 0.0);
        input.exclude_tags = stop | strafe;
        if i >= 200 {
            // Stand, but only stops may be jumped to.
            input = MatcherInput {
                require_tags: stop,
                ..Default::default()
            };
        }
        let f = s.step(&model, &input).unwrap().clone();
        let name = model.clips[f.clip].name();
        if f.jumped {
            if i < 200 {
                assert!(
                    !name.contains("Stop") && !name.contains("Strafe"),
                    "{i}: {name}"
                );
            } else {
                assert_eq!(name, "WalkStop", "{i}");
            }
        }
    }
}

fn trace(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .arg("trace")
        .args(args)
        .output()
        .expect("run stridescope")
}

const SCENARIO: &str = r#"(
    fps: 60,
    seconds: 8,
    events: [
        (at_secs: 0.5, action: Move(speed_mps: 1.27, heading_deg: 0)),
        (at_secs: 3.5, action: Move(speed_mps: 1.27, heading_deg: 90)),
        (at_secs: 6.0, action: Stand),
    ],
    motion_matching: (min_dwell_secs: 0.3),
)"#;

#[test]
fn trace_motion_matching_is_deterministic_and_reports_every_frame() {
    let dir = temp_dir("trace");
    let scenario = dir.join("path.ron");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let s = scenario.to_str().unwrap();
    let a = trace(&["--motion-matching", "--scenario", s, "--json"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let b = trace(&["--motion-matching", "--scenario", s, "--json"]);
    let c = trace(&[
        "--motion-matching",
        "--scenario",
        s,
        "--json",
        "--brute-force",
    ]);
    assert_eq!(a.stdout, b.stdout, "two runs differ");
    let text = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).into_owned();
    // Identical except for the line naming the search.
    assert_eq!(
        text(&a).replace("\"search\": \"accelerated\"", ""),
        text(&c).replace("\"search\": \"brute_force\"", "")
    );
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 8 * 60 + 1);
    // Memory: three copies of the 29 features (raw, normalised, the search's blocks) and
    // 16 bytes of frame information make 364 bytes a frame; boxes, bounds, clip names
    // and the last block's padding add a few percent.
    let dims = v["feature_dims"].as_u64().unwrap() as f64;
    let per_frame = v["database_bytes_per_frame"].as_f64().unwrap();
    let floor = 3.0 * dims * 4.0 + 16.0;
    assert!(
        (floor..floor * 1.15).contains(&per_frame),
        "{per_frame} bytes a frame"
    );
    let total = v["database_bytes"].as_f64().unwrap();
    let db_frames = v["database_frames"].as_f64().unwrap();
    assert!((total / db_frames - per_frame).abs() < 1e-6);
    for key in [
        "clip",
        "clip_time_secs",
        "cost",
        "cost_groups",
        "jumped",
        "trajectory_error_m",
    ] {
        assert!(frames[100].get(key).is_some(), "{key}");
    }
    let searched = frames
        .iter()
        .find(|f| f["searched"] == true && f["frame"].as_u64() > Some(30))
        .unwrap();
    let groups = searched["cost_groups"].as_object().unwrap();
    assert_eq!(groups.len(), 6);
    let total: f64 = groups.values().map(|g| g.as_f64().unwrap()).sum();
    let cost = searched["cost"].as_f64().unwrap();
    // The cost is the groups' sum plus the continuing bias when it did not jump.
    let bias = if searched["jumped"] == true {
        0.0
    } else {
        MatchingDef::default().continuing_bias as f64
    };
    assert!(
        (total + bias - cost).abs() < 1e-3 * (1.0 + cost.abs()),
        "{total} + {bias} vs {cost}"
    );
    let summary = &v["summary"];
    let jumps = frames.iter().filter(|f| f["jumped"] == true).count() as u64;
    assert_eq!(summary["jumps"].as_u64(), Some(jumps));
    assert!(
        (summary["mean_dwell_secs"].as_f64().unwrap() - 8.0 / (jumps as f64 + 1.0)).abs() < 1e-9
    );
    let mean: f64 = frames
        .iter()
        .map(|f| f["trajectory_error_m"].as_f64().unwrap())
        .sum::<f64>()
        / frames.len() as f64;
    assert!((summary["mean_trajectory_error_m"].as_f64().unwrap() - mean).abs() < 1e-6);
    // It walked: Walk played most, and it went about 1.27 m/s x 3 s north, then west.
    let secs = summary["clip_secs"].as_object().unwrap();
    let walk = secs["Walk"].as_f64().unwrap();
    assert!(walk > 3.0, "{secs:?}");
    let last = frames.last().unwrap();
    assert!(last["world_x_m"].as_f64().unwrap() > 2.0, "{last}");
    assert!(last["world_z_m"].as_f64().unwrap() > 3.0, "{last}");
    // The text form prints the same summary.
    let t = trace(&["--motion-matching", "--scenario", s]);
    assert!(String::from_utf8_lossy(&t.stdout).contains(&format!("{jumps} jumps")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The summary's foot slide, as locomotion's: planted feet (the playing clip's contacts
/// at its time) measured in the world. Standing, nothing slides; walking the demo set,
/// little; with every clip forced in place the character stays while its feet stride, so
/// the planted feet drag.
#[test]
fn trace_motion_matching_reports_foot_slide() {
    let dir = temp_dir("slide");
    let walk = dir.join("walk.ron");
    std::fs::write(&walk, SCENARIO).unwrap();
    let stand = dir.join("stand.ron");
    std::fs::write(
        &stand,
        "(fps: 60, seconds: 4, events: [(at_secs: 0.0, action: Stand)])",
    )
    .unwrap();
    let figures = |args: &[&str]| -> (f64, f64) {
        let o = trace(args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let s = &v["summary"];
        (
            s["slide_m_per_cycle"].as_f64().unwrap(),
            s["skating_ratio"].as_f64().unwrap(),
        )
    };
    let w = walk.to_str().unwrap();
    let (walk_slide, walk_skate) = figures(&["--motion-matching", "--scenario", w, "--json"]);
    let (stand_slide, stand_skate) = figures(&[
        "--motion-matching",
        "--scenario",
        stand.to_str().unwrap(),
        "--json",
    ]);
    // Forced in place, without foot locking (which would pin the dragged feet).
    let unlocked = dir.join("walk_unlocked.ron");
    std::fs::write(
        &unlocked,
        SCENARIO.replace(
            "(min_dwell_secs: 0.3)",
            "(min_dwell_secs: 0.3, foot_lock: false)",
        ),
    )
    .unwrap();
    let (drag_slide, _) = figures(&[
        "--motion-matching",
        "--scenario",
        unlocked.to_str().unwrap(),
        "--in-place",
        "--json",
    ]);
    eprintln!(
        "slide per cycle: walk {walk_slide:.3} m (skating {walk_skate:.3}), stand \
         {stand_slide:.4} m, in place {drag_slide:.3} m"
    );
    // Measured: walk 0.042 m and 1.7 %, stand 0.0001 m and 0, in place 0.149 m.
    assert!(
        stand_slide < 0.005 && stand_skate == 0.0,
        "{stand_slide} {stand_skate}"
    );
    assert!(
        walk_slide < 0.08 && walk_skate < 0.05,
        "{walk_slide} {walk_skate}"
    );
    assert!(
        drag_slide > 2.0 * walk_slide,
        "{drag_slide} vs {walk_slide}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_motion_matching_scenarios_name_the_problem() {
    let dir = temp_dir("bad-scenario");
    let cases = [
        (
            "(seconds: 1, events: [(at_secs: 0, action: Set(\"speed\", 1.0))])",
            "pose-graph action",
        ),
        (
            "(seconds: 1, events: [(at_secs: 0, action: Tags(require: [\"flying\"]))])",
            "unknown tag 'flying'",
        ),
        (
            "(seconds: 1, events: [(at_secs: 0, action: Move(speed_mps: -1, heading_deg: 0))])",
            "Move needs a speed",
        ),
        (
            "(seconds: 1, motion_matching: (clips: [\"Walk\", \"Swim\"]))",
            "no clip named 'Swim'",
        ),
        (
            "(seconds: 1, events: [(at_secs: 0, action: Fly)])",
            "path.ron:1:",
        ),
    ];
    for (text, expected) in cases {
        let p = dir.join("path.ron");
        std::fs::write(&p, text).unwrap();
        let o = trace(&["--motion-matching", "--scenario", p.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{text}");
        assert!(err.contains(expected), "{text}: {err}");
    }
    // A motion-matching action in a pose-graph scenario is refused with the way out.
    let p = dir.join("graph.ron");
    std::fs::write(&p, "(seconds: 1, events: [(at_secs: 0.5, action: Stand)])").unwrap();
    let o = trace(&["--scenario", p.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--motion-matching"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stop_plays_the_stop_clip_and_ends_standing_in_idle() {
    let (model, mut s) = walk_session(MatchingDef::default());
    let walk = s.walk_speed_mps;
    let mut names = Vec::new();
    for i in 0..=600 {
        let input = if i < 240 {
            walk_input(walk, 0.0)
        } else {
            MatcherInput::default()
        };
        let f = s.step(&model, &input).unwrap();
        if i >= 240 {
            names.push(model.clips[f.clip].name().to_string());
        }
    }
    assert!(names.iter().any(|n| n == "WalkStop"), "no stop clip");
    // It ends in Idle (the stop's tail is not replayed), standing still.
    assert_eq!(names.last().unwrap(), "Idle");
    let frames = s.frames();
    let (a, b) = (&frames[540], &frames[600]);
    let moved = (a.world_from_root.translation - b.world_from_root.translation).length();
    assert!(moved < 1e-3, "moved {moved} m in the last second");
    // And the simulated point settled onto the character.
    assert!(b.trajectory_error_m < 0.01, "{}", b.trajectory_error_m);
}

/// The recording is capped in bytes (issue 17), not frames: past the cap the oldest half
/// goes, at a snapshot boundary, the newest frame stays, and the kept frames still replay.
#[test]
fn the_recording_stays_under_its_byte_cap() {
    use stridescope::stage::matching::session::{MAX_RECORDING_BYTES, SNAPSHOT_EVERY};
    let (model, mut s) = walk_session(MatchingDef::default());
    let walk = s.walk_speed_mps;
    // Default cap: what 600 frames cost says how many fit in 8 MiB (over 3 minutes).
    for _ in 0..600 {
        s.step(&model, &walk_input(walk, 0.0)).unwrap();
    }
    let per_frame = s.recorded_bytes() as f64 / 600.0;
    eprintln!("{per_frame:.0} bytes a recorded frame");
    assert!(
        (200.0..2000.0).contains(&per_frame),
        "{per_frame} bytes a frame"
    );
    assert!(MAX_RECORDING_BYTES as f64 / per_frame > 60.0 * 60.0 * 3.0);
    // A 256 KiB cap: 3,000 frames do not fit.
    let cap = 256 << 10;
    s.set_recording_cap_bytes(cap);
    let mut peak = 0;
    let mut shown = std::collections::HashMap::new();
    for i in 0..3000 {
        // Turning now and then, so frames differ.
        let f = s
            .step(&model, &walk_input(walk, ((i / 200) % 3) as f32 * 45.0))
            .unwrap()
            .clone();
        peak = peak.max(s.recorded_bytes());
        shown.insert(f.frame, (f, s.pose().to_vec()));
    }
    let frames = s.frames();
    assert!(
        frames.len() < 3000 && frames.len() > SNAPSHOT_EVERY,
        "{}",
        frames.len()
    );
    assert_eq!(
        frames.last().unwrap().frame,
        3599,
        "the newest frame is kept"
    );
    assert_eq!(
        frames[0].frame as usize % SNAPSHOT_EVERY,
        0,
        "dropped at a snapshot"
    );
    // Over the cap by at most one frame and one snapshot.
    assert!(
        peak <= cap + (16 << 10),
        "peak {peak} bytes for a {cap}-byte cap"
    );
    // The oldest kept frames replay from their snapshot exactly as they were shown.
    let kept = frames.len();
    for idx in [0, 1, SNAPSHOT_EVERY + 7, kept - 2] {
        s.seek(&model, idx).unwrap();
        let f = s.current().unwrap().clone();
        let (live, pose) = &shown[&f.frame];
        assert_eq!(&f, live, "frame {}", f.frame);
        assert_eq!(s.pose(), &pose[..], "pose of frame {}", f.frame);
    }
}

/// The debugger's "kept out" list: running with the run tag excluded, the run frames that
/// fit better are listed for their tag; every listed frame really breaks the rule given
/// (its tags, its place in the playing clip's exclusion window, or a clip's end) and
/// would have cost less than the best candidate allowed.
#[test]
fn the_debugger_says_why_better_frames_were_kept_out() {
    let (model, mut s) = walk_session(MatchingDef::default());
    s.set_explain(true);
    let tags = s.db.tag_names().to_vec();
    let run_bit = 1u32 << tags.iter().position(|t| t == "run").expect("a run tag");
    let mut input = walk_input(s.run_speed_mps, 0.0);
    input.exclude_tags = run_bit;
    let window = MatchingDef::default().exclude_window_secs;
    let mut reasons = std::collections::BTreeMap::new();
    let mut playing: Option<(usize, f64)> = None;
    for _ in 0..180 {
        let f = s.step(&model, &input).unwrap().clone();
        if f.searched {
            let best = f.candidates.first().map(|c| c.cost);
            for d in &f.dropped {
                let info = s.db.frames()[d.frame];
                assert!(best.is_none_or(|b| d.cost < b), "{d:?} vs {best:?}");
                match d.reason {
                    DropReason::ExcludedTag => assert!(info.tags & run_bit != 0, "{d:?}"),
                    DropReason::ClipEnd => assert!(!info.candidate, "{d:?}"),
                    DropReason::ExclusionWindow => {
                        let (source, t) = playing.expect("something played before");
                        assert_eq!(info.source as usize, source, "{d:?}");
                        let c = &s.db.clips()[source];
                        let mut gap = (info.time_secs as f64 - t).abs();
                        if c.looping {
                            gap = gap.min(c.duration_secs as f64 - gap);
                        }
                        // `t` is the last frame's time: the search ran one step (of
                        // up to the fastest play rate) later.
                        let step = s.dt_secs * MatchingDef::default().play_rate_max as f64;
                        assert!(
                            gap <= window as f64 + step + 1e-4,
                            "{d:?}: {gap} s from {t}"
                        );
                    }
                    DropReason::MissingTag => panic!("nothing required: {d:?}"),
                }
                *reasons.entry(d.reason.as_str()).or_insert(0) += 1;
            }
            // Nothing kept out is the winner.
            assert!(f
                .candidates
                .iter()
                .all(|c| f.dropped.iter().all(|d| d.frame != c.frame)));
        }
        playing = Some((f.source, f.clip_time_secs));
    }
    eprintln!("kept out: {reasons:?}");
    assert!(
        reasons.get("excluded tag").copied().unwrap_or(0) > 0,
        "{reasons:?}"
    );
    // Off (the default for traces), nothing is recorded.
    s.set_explain(false);
    s.reset(&model).unwrap();
    for _ in 0..30 {
        assert!(s.step(&model, &input).unwrap().dropped.is_empty());
    }
}

/// The scenario file's flat matcher fields (human-rig metres) and the core's settings
/// (rig units) are two spellings of one thing: every field survives the round trip, the
/// distances are scaled by the rig's unit scale, and the file's defaults are the core's.
#[test]
fn the_file_settings_and_the_core_settings_round_trip() {
    use stridescope::anim::motion_matching::{FootLockSettings, MatcherSettings};
    // Every field differs from its default, so a field one direction forgets shows.
    let core = MatcherSettings {
        search_interval_secs: 0.05,
        min_dwell_secs: 0.4,
        continuing_bias: -0.25,
        current_clip_bias: 0.3,
        exclude_window_secs: 0.35,
        half_life_secs: 0.07,
        accelerated: false,
        top_n: 12,
        drift_clamp_m: Some(48.0),
        steering_deg_per_sec: Some(45.0),
        adjust_half_life_secs: None,
        adjust_max_ratio: 0.75,
        play_rate_range: (0.9, 1.3),
        foot_lock: Some(FootLockSettings {
            unlock_radius: 16.0,
            release_secs: 0.25,
        }),
        spring: SpringSettings {
            velocity_half_life_secs: 0.3,
            facing_half_life_secs: 0.45,
        },
    };
    // A rig 64 times human size (a power of two, so the scaling is exact).
    let mut def = MatchingDef::default();
    def.set_matcher(&core, 64.0);
    assert_eq!(def.drift_clamp_m, Some(0.75), "metres of a human-sized rig");
    assert_eq!(def.foot_unlock_radius_m, 0.25);
    assert_eq!((def.play_rate_min, def.play_rate_max), (0.9, 1.3));
    assert!(def.foot_lock);
    assert_eq!(def.matcher_settings(64.0), core);

    // No foot lock: the switch is off and the lock's fields keep the core's defaults.
    let unlocked = MatcherSettings {
        foot_lock: None,
        ..core
    };
    def.set_matcher(&unlocked, 64.0);
    assert!(!def.foot_lock);
    assert_eq!(def.foot_unlock_radius_m, 0.2);
    assert_eq!(def.foot_lock_release_secs, 0.15);
    assert_eq!(def.matcher_settings(64.0), unlocked);

    assert_eq!(
        MatchingDef::default().matcher_settings(1.0),
        MatcherSettings::default()
    );
}
