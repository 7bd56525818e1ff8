//! State machine logic: RON definitions and their validation, eases, hysteresis,
//! interruption with snapshots, flip-flops, event sources, exit times, priorities.
//!
//! Known values: eases by hand (smoothstep(0.25) = 0.0625 * 2.5 = 0.15625), fades with
//! durations and frame times that are exact in binary (multiples of 0.25 s), so weights
//! compare with `==`.

use serde::Deserialize;
use stridescope::anim::state_machine::{
    Condition, Ease, FiredEvent, Interruption, ParamError, ParamValue, Params, Slot, StateDef,
    StateMachine, StateMachineDef, StateMachineError, StepReport, TransitionDef, TransitionProblem,
};

/// A stand-in for the pose graph's node definitions.
#[derive(Clone, Debug, Deserialize, PartialEq)]
enum Node {
    Clip(String),
    Blend1D { param: String },
}

fn no_time(_: usize) -> f32 {
    0.0
}

fn parse(src: &str) -> StateMachineDef<Node> {
    match ron::from_str(src) {
        Ok(def) => def,
        Err(e) => panic!("RON: {e}"),
    }
}

fn build(src: &str, params: &Params) -> StateMachine {
    match StateMachine::new(&parse(src), params) {
        Ok(m) => m,
        Err(e) => panic!("new: {e}"),
    }
}

fn build_err(src: &str, params: &Params) -> String {
    match StateMachine::new(&parse(src), params) {
        Ok(_) => panic!("expected an error for\n{src}"),
        Err(e) => e.to_string(),
    }
}

fn step(m: &mut StateMachine, dt: f32, params: &Params) -> StepReport {
    m.update(dt, params, &no_time, &[])
}

fn locomotion_params() -> Params {
    let mut p = Params::new();
    p.declare_float("speed", 0.0);
    p.declare_bool("grounded", true);
    p.declare_bool("go", false);
    p
}

/// States A, B, C, D and the given transitions (RON text).
fn abcd(transitions: &str) -> String {
    format!(
        r#"(
    initial: "A",
    states: [
        (name: "A", node: Clip("a")),
        (name: "B", node: Clip("b")),
        (name: "C", node: Clip("c")),
        (name: "D", node: Clip("d")),
    ],
    transitions: [{transitions}],
)"#
    )
}

const A: usize = 0;
const B: usize = 1;
const C: usize = 2;
const D: usize = 3;

const FULL: &str = r#"// A locomotion machine using every field.
(
    initial: "Idle",
    states: [
        (name: "Idle", node: Clip("idle")),
        (name: "Walk", node: Blend1D(param: "speed")),
        (name: "Run", node: Clip("run")),
        (name: "Jump", node: Clip("jump")),
    ],
    transitions: [
        (from: "Idle", to: "Walk", conditions: [Greater(param: "speed", value: 0.1)]),
        (
            from: "Walk",
            to: "Run",
            conditions: [Greater(param: "speed", value: 2.0, band: 0.4)],
            duration_secs: 0.5,
            ease: Linear,
            interruption: Destination,
        ),
        (
            from: "Run",
            to: "Walk",
            conditions: [Less(param: "speed", value: 2.0, band: 0.4)],
            ease: Curve([(0.0, 0.0), (0.5, 0.8), (1.0, 1.0)]),
            interruption: SourceThenDestination,
        ),
        (from: "*", to: "Jump", conditions: [IsFalse("grounded")], priority: 10, duration_secs: 0.0),
        (from: "Jump", to: "Idle", conditions: [IsTrue("grounded"), Event("land")], exit_time: Some(0.9)),
    ],
)
"#;

#[test]
fn loads_a_ron_definition_with_defaults() {
    let def = parse(FULL);
    assert_eq!(def.initial, "Idle");
    assert_eq!(def.states.len(), 4);
    assert_eq!(
        def.states[1],
        StateDef {
            name: "Walk".to_string(),
            node: Node::Blend1D {
                param: "speed".to_string()
            }
        }
    );
    let t = &def.transitions;
    assert_eq!(t.len(), 5);
    // Defaults: 0.25 s smoothstep, priority 0, no exit time, not interruptible, band 0.
    assert_eq!(t[0].duration_secs, 0.25);
    assert_eq!(t[0].ease, Ease::Smoothstep);
    assert_eq!(t[0].priority, 0);
    assert_eq!(t[0].exit_time, None);
    assert_eq!(t[0].interruption, Interruption::None);
    assert_eq!(
        t[0].conditions,
        vec![Condition::Greater {
            param: "speed".to_string(),
            value: 0.1,
            band: 0.0
        }]
    );
    assert_eq!(t[1].duration_secs, 0.5);
    assert_eq!(t[1].ease, Ease::Linear);
    assert_eq!(t[1].interruption, Interruption::Destination);
    assert_eq!(
        t[2].ease,
        Ease::Curve(vec![(0.0, 0.0), (0.5, 0.8), (1.0, 1.0)])
    );
    assert_eq!(t[2].interruption, Interruption::SourceThenDestination);
    assert_eq!(t[3].from, "*");
    assert_eq!(t[3].priority, 10);
    assert_eq!(t[3].duration_secs, 0.0);
    assert_eq!(t[4].exit_time, Some(0.9));
    assert_eq!(
        t[4].conditions,
        vec![
            Condition::IsTrue("grounded".to_string()),
            Condition::Event("land".to_string())
        ]
    );

    let m = build(FULL, &locomotion_params());
    assert_eq!(m.state_count(), 4);
    assert_eq!(m.state_name(2), "Run");
    assert_eq!(m.state_name(99), "");
    assert_eq!(m.state_index("Jump"), Some(3));
    assert_eq!(m.state_index("Swim"), None);
    assert_eq!(m.current(), 0);
    assert_eq!(m.weights(), &[(Slot::State(0), 1.0)]);
    assert_eq!(m.transition_progress(), None);

    // With RON's `implicit_some` extension enabled in the file, `exit_time: 0.9` needs no
    // `Some(..)`.
    let implicit = format!(
        "#![enable(implicit_some)]\n{}",
        FULL.replace("exit_time: Some(0.9)", "exit_time: 0.9")
    );
    assert_eq!(parse(&implicit).transitions[4].exit_time, Some(0.9));

    // A definition with `String` nodes and no transitions (the field defaults to empty).
    let def: StateMachineDef<String> =
        ron::from_str(r#"(initial: "T", states: [(name: "T", node: "t.glb#Idle")])"#)
            .expect("parses");
    assert!(def.transitions.is_empty());
    assert!(StateMachine::new(&def, &Params::new()).is_ok());
}

#[test]
fn bad_definitions_name_the_state_and_transition() {
    let p = locomotion_params();
    let walk_run = |cond: &str| {
        format!(
            r#"(initial: "Walk", states: [(name: "Walk", node: Clip("w")), (name: "Run", node: Clip("r"))],
                transitions: [(from: "Walk", to: "Run", conditions: [{cond}])])"#
        )
    };

    let e = build_err(
        r#"(initial: "Run", states: [(name: "Run", node: Clip("r"))],
            transitions: [(from: "Run", to: "Jump", conditions: [IsTrue("go")])])"#,
        &p,
    );
    assert_eq!(
        e,
        "state 'Run': transition 'Run -> Jump': unknown state 'Jump'"
    );

    let e = build_err(
        r#"(initial: "Run", states: [(name: "Run", node: Clip("r"))],
            transitions: [(from: "Swim", to: "Run", conditions: [IsTrue("go")])])"#,
        &p,
    );
    assert_eq!(
        e,
        "state 'Swim': transition 'Swim -> Run': unknown state 'Swim'"
    );

    let e = build_err(
        r#"(initial: "Run", states: [(name: "Run", node: Clip("r"))],
            transitions: [(from: "*", to: "Fly", conditions: [IsTrue("go")])])"#,
        &p,
    );
    assert_eq!(e, "any state: transition '* -> Fly': unknown state 'Fly'");

    let e = build_err(
        r#"(initial: "Walk", states: [(name: "Walk", node: Clip("w")), (name: "Walk", node: Clip("w2"))])"#,
        &p,
    );
    assert_eq!(e, "state 'Walk': duplicate state name");

    let e = build_err(
        r#"(initial: "Idle", states: [(name: "Walk", node: Clip("w"))])"#,
        &p,
    );
    assert_eq!(e, "initial state 'Idle' is not a state");

    let e = build_err(&walk_run(r#"Greater(param: "sped", value: 2.0)"#), &p);
    assert_eq!(
        e,
        "state 'Walk': transition 'Walk -> Run': condition 0: unknown parameter 'sped'"
    );

    let e = build_err(&walk_run(r#"Greater(param: "grounded", value: 0.5)"#), &p);
    assert_eq!(
        e,
        "state 'Walk': transition 'Walk -> Run': condition 0: parameter 'grounded' is a bool, Greater needs a float"
    );

    let e = build_err(&walk_run(r#"IsTrue("go"), IsTrue("speed")"#), &p);
    assert_eq!(
        e,
        "state 'Walk': transition 'Walk -> Run': condition 1: parameter 'speed' is a float, IsTrue needs a bool"
    );

    let e = build_err(
        &walk_run(r#"Less(param: "speed", value: 1.0, band: -0.2)"#),
        &p,
    );
    assert!(e.contains("band -0.2 must be finite and >= 0"), "{e}");

    // RON writes NaN and infinity as `NaN` / `inf`.
    let e = build_err(&walk_run(r#"Less(param: "speed", value: NaN)"#), &p);
    assert!(e.contains("value NaN is not finite"), "{e}");

    let e = build_err(
        r#"(initial: "Walk", states: [(name: "Walk", node: Clip("w")), (name: "Run", node: Clip("r"))],
            transitions: [(from: "Walk", to: "Run", conditions: [IsTrue("go")], duration_secs: -0.5)])"#,
        &p,
    );
    assert_eq!(
        e,
        "state 'Walk': transition 'Walk -> Run': duration_secs -0.5 must be finite and >= 0"
    );

    let e = build_err(
        r#"(initial: "Walk", states: [(name: "Walk", node: Clip("w")), (name: "Run", node: Clip("r"))],
            transitions: [(from: "Walk", to: "Run", exit_time: Some(inf))])"#,
        &p,
    );
    assert!(e.contains("exit_time inf must be finite"), "{e}");

    let e = build_err(
        r#"(initial: "Walk", states: [(name: "Walk", node: Clip("w")), (name: "Run", node: Clip("r"))],
            transitions: [(from: "Walk", to: "Run")])"#,
        &p,
    );
    assert!(
        e.starts_with("state 'Walk': transition 'Walk -> Run': no conditions and no exit_time"),
        "{e}"
    );

    let e = build_err(
        r#"(initial: "Walk", states: [(name: "Walk", node: Clip("w")), (name: "Run", node: Clip("r"))],
            transitions: [(from: "Walk", to: "*", conditions: [IsTrue("go")])])"#,
        &p,
    );
    assert!(e.contains("can only be a source"), "{e}");

    for (curve, why) in [
        ("[(0.0, 0.0)]", "at least 2 points"),
        (
            "[(0.0, 0.0), (0.5, 0.9), (0.4, 0.95), (1.0, 1.0)]",
            "progress must increase",
        ),
        (
            "[(0.0, 0.0), (0.5, 1.5), (1.0, 1.0)]",
            "weight must be in 0..=1",
        ),
        ("[(0.1, 0.0), (1.0, 1.0)]", "must start at (0, 0)"),
        ("[(0.0, 0.0), (1.0, 0.9)]", "must end at (1, 1)"),
    ] {
        let e = build_err(
            &format!(
                r#"(initial: "Walk", states: [(name: "Walk", node: Clip("w")), (name: "Run", node: Clip("r"))],
                    transitions: [(from: "Walk", to: "Run", conditions: [IsTrue("go")], ease: Curve({curve}))])"#
            ),
            &p,
        );
        assert!(
            e.starts_with("state 'Walk': transition 'Walk -> Run': ease curve") && e.contains(why),
            "{curve}: {e}"
        );
    }
}

#[test]
fn ron_syntax_errors_carry_line_and_column() {
    // Line 4 lacks the comma between the two states; RON reports it where the next
    // element begins, on line 5.
    let broken = "(\n    initial: \"A\",\n    states: [\n        (name: \"A\", node: Clip(\"a\"))\n        (name: \"B\", node: Clip(\"b\")),\n    ],\n)\n";
    let err = ron::from_str::<StateMachineDef<Node>>(broken).expect_err("broken file");
    assert_eq!(err.span.start.line, 5, "{err}");
    assert!(err.span.start.col > 1, "{err}");
    // Display starts with LINE:COL, which the lead prefixes with the file name.
    let shown = err.to_string();
    assert!(shown.starts_with("5:"), "{shown}");

    // A misspelt field is rejected (not silently defaulted), also with its line.
    let typo = "(\n    initial: \"A\",\n    states: [(name: \"A\", node: Clip(\"a\"))],\n    transitions: [(from: \"A\", to: \"A\", exit_tme: Some(0.5))],\n)\n";
    let err = ron::from_str::<StateMachineDef<Node>>(typo).expect_err("unknown field");
    assert_eq!(err.span.start.line, 4, "{err}");
    assert!(err.to_string().contains("exit_tme"), "{err}");
}

#[test]
fn ease_values() {
    assert_eq!(Ease::Smoothstep.eval(0.25), 0.15625);
    assert_eq!(Ease::Smoothstep.eval(0.5), 0.5);
    assert_eq!(Ease::Smoothstep.eval(0.75), 0.84375);
    assert_eq!(Ease::Smoothstep.eval(0.0), 0.0);
    assert_eq!(Ease::Smoothstep.eval(1.0), 1.0);
    // Progress is clamped; NaN counts as 0.
    assert_eq!(Ease::Smoothstep.eval(-3.0), 0.0);
    assert_eq!(Ease::Smoothstep.eval(7.0), 1.0);
    assert_eq!(Ease::Smoothstep.eval(f32::NAN), 0.0);
    assert_eq!(Ease::Linear.eval(0.3), 0.3);
    assert_eq!(Ease::Linear.eval(1.5), 1.0);

    let curve = Ease::Curve(vec![(0.0, 0.0), (0.5, 0.8), (1.0, 1.0)]);
    assert!(curve.validate().is_ok());
    assert_eq!(curve.eval(0.0), 0.0);
    assert_eq!(curve.eval(0.25), 0.4);
    assert_eq!(curve.eval(0.5), 0.8);
    assert!((curve.eval(0.75) - 0.9).abs() < 1e-6);
    assert_eq!(curve.eval(1.0), 1.0);
}

#[test]
fn fade_weights_follow_the_ease_and_duration_zero_switches_at_once() {
    let mut p = Params::new();
    p.declare_bool("go", false);
    p.declare_bool("jump", false);
    let mut m = build(
        &abcd(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")], duration_secs: 1.0, ease: Linear),
               (from: "B", to: "C", conditions: [IsTrue("go")], duration_secs: 1.0),
               (from: "C", to: "D", conditions: [IsTrue("jump")], duration_secs: 0.0)"#,
        ),
        &p,
    );
    // Nothing holds: A plays alone.
    assert_eq!(step(&mut m, 0.25, &p), StepReport::default());
    assert_eq!(m.weights(), &[(Slot::State(A), 1.0)]);

    p.set_bool("go", true).unwrap();
    let r = step(&mut m, 0.25, &p);
    assert_eq!(
        r,
        StepReport {
            started: Some(0),
            entered: Some(B),
            snapshot: false,
            finished: None,
            inertialize: None
        }
    );
    // The fade starts at weight 0: the update that starts it does not advance it.
    assert_eq!(m.weights(), &[(Slot::State(A), 1.0), (Slot::State(B), 0.0)]);
    assert_eq!(m.current(), B);
    assert_eq!(m.active_transition(), Some(0));
    p.set_bool("go", false).unwrap();
    for expected in [0.25, 0.5, 0.75] {
        assert_eq!(step(&mut m, 0.25, &p), StepReport::default());
        assert_eq!(
            m.weights(),
            &[(Slot::State(A), 1.0 - expected), (Slot::State(B), expected)]
        );
        assert_eq!(m.transition_progress(), Some((Slot::State(A), B, expected)));
    }
    let r = step(&mut m, 0.25, &p);
    assert_eq!(r.finished, Some(B));
    assert_eq!(m.weights(), &[(Slot::State(B), 1.0)]);
    assert_eq!(m.transition_progress(), None);

    // Smoothstep over 1 s: a quarter of the way in the weight is 0.15625.
    p.set_bool("go", true).unwrap();
    assert_eq!(step(&mut m, 0.25, &p).started, Some(1));
    p.set_bool("go", false).unwrap();
    step(&mut m, 0.25, &p);
    assert_eq!(
        m.weights(),
        &[(Slot::State(B), 0.84375), (Slot::State(C), 0.15625)]
    );
    for _ in 0..3 {
        step(&mut m, 0.25, &p);
    }
    assert_eq!(m.weights(), &[(Slot::State(C), 1.0)]);

    // Duration 0: C -> D switches within the update, no fade at all.
    p.set_bool("jump", true).unwrap();
    let r = step(&mut m, 0.25, &p);
    assert_eq!(
        r,
        StepReport {
            started: Some(2),
            entered: Some(D),
            snapshot: false,
            finished: Some(D),
            inertialize: None
        }
    );
    assert_eq!(m.weights(), &[(Slot::State(D), 1.0)]);
    assert_eq!(m.transition_progress(), None);
}

#[test]
fn hysteresis_band_prevents_flip_flop() {
    let mut p = locomotion_params();
    let src = r#"(
        initial: "Walk",
        states: [(name: "Walk", node: Clip("walk")), (name: "Run", node: Clip("run"))],
        transitions: [
            (from: "Walk", to: "Run", conditions: [Greater(param: "speed", value: 2.0, band: 0.4)]),
            (from: "Run", to: "Walk", conditions: [Less(param: "speed", value: 2.0, band: 0.4)]),
        ],
    )"#;
    let mut m = build(src, &p);
    let (walk, run) = (0, 1);
    let dt = 1.0 / 60.0;
    // Oscillating over 1.85..2.15, across the threshold 2 but inside the band.
    let wobble = |i: usize| 2.0 + 0.15 * (i as f32 * 0.7).sin();
    let mut lo = f32::MAX;
    let mut hi = f32::MIN;
    for i in 0..1000 {
        let s = wobble(i);
        lo = lo.min(s);
        hi = hi.max(s);
        p.set_float("speed", s).unwrap();
        assert_eq!(step(&mut m, dt, &p).started, None, "update {i}, speed {s}");
    }
    assert!(
        lo < 1.86 && hi > 2.14,
        "oscillation covers 1.85..2.15: {lo}..{hi}"
    );
    assert_eq!(m.current(), walk);

    // The band edge itself does not fire (strictly greater than 2.2).
    p.set_float("speed", 2.2).unwrap();
    assert_eq!(step(&mut m, dt, &p).started, None);
    p.set_float("speed", 2.3).unwrap();
    let r = step(&mut m, dt, &p);
    assert_eq!(r.started, Some(0));
    assert_eq!(r.entered, Some(run));

    // 1.9 is below 2 but inside the band: Run stays, its fade completes.
    p.set_float("speed", 1.9).unwrap();
    for _ in 0..60 {
        assert_eq!(step(&mut m, dt, &p).started, None);
    }
    assert_eq!(m.weights(), &[(Slot::State(run), 1.0)]);
    for i in 0..1000 {
        p.set_float("speed", wobble(i)).unwrap();
        assert_eq!(step(&mut m, dt, &p).started, None);
    }
    p.set_float("speed", 1.8).unwrap();
    assert_eq!(step(&mut m, dt, &p).started, None);
    p.set_float("speed", 1.7).unwrap();
    let r = step(&mut m, dt, &p);
    assert_eq!(r.started, Some(1));
    assert_eq!(m.current(), walk);
}

fn flip_pair(interruption: &str) -> String {
    abcd(&format!(
        r#"(from: "A", to: "B", conditions: [IsTrue("go")], duration_secs: 1.0, ease: Linear, interruption: {interruption}),
           (from: "B", to: "A", conditions: [IsFalse("go")], duration_secs: 1.0, ease: Linear, interruption: {interruption})"#
    ))
}

#[test]
fn interruption_destination_fades_from_a_snapshot_to_a_full_state() {
    let mut p = locomotion_params();
    let mut m = build(&flip_pair("Destination"), &p);
    p.set_bool("go", true).unwrap();
    step(&mut m, 0.25, &p);
    step(&mut m, 0.25, &p);
    step(&mut m, 0.25, &p);
    assert_eq!(m.weights(), &[(Slot::State(A), 0.5), (Slot::State(B), 0.5)]);

    // B -> A's condition holds halfway through A -> B: B is the destination, so it may
    // interrupt.
    p.set_bool("go", false).unwrap();
    let r = step(&mut m, 0.25, &p);
    assert_eq!(
        r,
        StepReport {
            started: Some(1),
            entered: Some(A),
            snapshot: true,
            finished: None,
            inertialize: None
        }
    );
    assert_eq!(m.weights(), &[(Slot::Snapshot, 1.0), (Slot::State(A), 0.0)]);
    assert_eq!(m.current(), A);
    for expected in [0.25, 0.5, 0.75] {
        assert_eq!(step(&mut m, 0.25, &p), StepReport::default());
        assert_eq!(
            m.weights(),
            &[(Slot::Snapshot, 1.0 - expected), (Slot::State(A), expected)]
        );
        assert_eq!(m.transition_progress(), Some((Slot::Snapshot, A, expected)));
    }
    assert_eq!(step(&mut m, 0.25, &p).finished, Some(A));
    assert_eq!(m.weights(), &[(Slot::State(A), 1.0)]);
}

#[test]
fn interruption_none_lets_the_fade_complete() {
    let mut p = locomotion_params();
    let mut m = build(&flip_pair("None"), &p);
    p.set_bool("go", true).unwrap();
    step(&mut m, 0.25, &p);
    step(&mut m, 0.25, &p);
    step(&mut m, 0.25, &p);
    p.set_bool("go", false).unwrap();
    for expected in [0.75, 1.0] {
        let r = step(&mut m, 0.25, &p);
        assert_eq!(r.started, None);
        assert!(!r.snapshot);
        if expected < 1.0 {
            assert_eq!(
                m.weights(),
                &[(Slot::State(A), 1.0 - expected), (Slot::State(B), expected)]
            );
        } else {
            assert_eq!(r.finished, Some(B));
            assert_eq!(m.weights(), &[(Slot::State(B), 1.0)]);
        }
    }
    // Only once B plays alone does B -> A fire, as a plain fade from B.
    let r = step(&mut m, 0.25, &p);
    assert_eq!(r.started, Some(1));
    assert!(!r.snapshot);
    assert_eq!(m.weights(), &[(Slot::State(B), 1.0), (Slot::State(A), 0.0)]);
}

#[test]
fn interruption_source_and_ordered_variants() {
    let mut p = Params::new();
    p.declare_bool("go", false);
    p.declare_bool("x", false);
    let machine = |interruption: &str| {
        build(
            &abcd(&format!(
                r#"(from: "A", to: "B", conditions: [IsTrue("go")], duration_secs: 1.0, interruption: {interruption}),
                   (from: "A", to: "C", conditions: [IsTrue("x")]),
                   (from: "B", to: "D", conditions: [IsTrue("x")])"#
            )),
            &p,
        )
    };
    let mut results = Vec::new();
    for interruption in [
        "None",
        "Source",
        "Destination",
        "SourceThenDestination",
        "DestinationThenSource",
    ] {
        let mut p = p.clone();
        let mut m = machine(interruption);
        p.set_bool("go", true).unwrap();
        assert_eq!(step(&mut m, 0.25, &p).started, Some(0));
        step(&mut m, 0.25, &p);
        p.set_bool("x", true).unwrap();
        let r = step(&mut m, 0.25, &p);
        results.push((interruption, r.started, r.snapshot, m.current()));
    }
    assert_eq!(
        results,
        vec![
            ("None", None, false, B),
            ("Source", Some(1), true, C),
            ("Destination", Some(2), true, D),
            ("SourceThenDestination", Some(1), true, C),
            ("DestinationThenSource", Some(2), true, D),
        ]
    );
}

/// A one-number pose graph: state i's pose is `values[i]`; the snapshot freezes the last
/// output when the report asks for it.
struct ScalarGraph {
    values: [f32; 4],
    snapshot: f32,
    output: f32,
}

impl ScalarGraph {
    fn evaluate(&mut self, m: &StateMachine, report: &StepReport) -> f32 {
        if report.snapshot {
            self.snapshot = self.output;
        }
        let mut out = 0.0;
        let mut sum = 0.0;
        for &(slot, w) in m.weights() {
            let v = match slot {
                Slot::State(i) => self.values[i],
                Slot::Snapshot => self.snapshot,
            };
            out += w * v;
            sum += w;
        }
        assert!((sum - 1.0).abs() < 1e-6, "weights sum to {sum}");
        self.output = out;
        out
    }
}

#[test]
fn flip_flop_never_jumps_and_settles_within_one_fade() {
    let mut p = locomotion_params();
    let fade = 0.25;
    let mut m = build(
        &abcd(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")], interruption: Destination),
               (from: "B", to: "A", conditions: [IsFalse("go")], interruption: Destination)"#,
        ),
        &p,
    );
    let mut graph = ScalarGraph {
        values: [0.0, 1.0, 0.0, 0.0],
        snapshot: f32::NAN,
        output: 0.0,
    };
    let dt = 0.01;
    // Smoothstep's steepest slope is 1.5 / duration; values differ by at most 1.
    let max_step = 1.5 * dt / fade + 1e-5;
    let mut starts = 0;
    let mut last_progress: Option<f32> = None;
    // Toggle every 0.1 s (10 updates) for 10 s.
    for i in 0..1000 {
        if i % 10 == 0 {
            p.set_bool("go", (i / 10) % 2 == 0).unwrap();
        }
        let before = graph.output;
        let r = step(&mut m, dt, &p);
        let out = graph.evaluate(&m, &r);
        assert!(
            (out - before).abs() <= max_step,
            "update {i}: pose jumped {before} -> {out}"
        );
        if r.started.is_some() {
            starts += 1;
            last_progress = Some(0.0);
        } else if let Some((_, _, w)) = m.transition_progress() {
            // Progress moves every update that starts nothing.
            let prev = last_progress.expect("a fade was running");
            assert!(w > prev, "update {i}: progress stuck at {w}");
            last_progress = Some(w);
        }
    }
    assert_eq!(starts, 100, "every toggle starts a transition");
    // The last toggle (update 990, go = false) started B -> A; 9 updates (0.09 s) of it
    // have run. Stop toggling: the remaining 0.16 s take 16 updates, well within one fade.
    let settled = m.current();
    assert_eq!(settled, A);
    let mut finished_at = None;
    for i in 0..50 {
        let r = step(&mut m, dt, &p);
        assert_eq!(r.started, None);
        graph.evaluate(&m, &r);
        if r.finished.is_some() {
            assert_eq!(finished_at, None, "finishes once");
            finished_at = Some(i + 1);
        }
        if finished_at.is_some() {
            assert_eq!(m.weights(), &[(Slot::State(settled), 1.0)]);
            assert_eq!(graph.output, graph.values[settled]);
        }
    }
    assert_eq!(finished_at, Some(16));
}

#[test]
fn events_from_a_fading_out_state_never_trigger() {
    let mut p = Params::new();
    p.declare_bool("go", false);
    let ev = |name, source_state| FiredEvent { name, source_state };

    // "*" -> C on an event, during A -> B (B is current).
    let mut m = build(
        &abcd(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")], duration_secs: 1.0, interruption: Destination),
               (from: "*", to: "C", conditions: [Event("kick")])"#,
        ),
        &p,
    );
    p.set_bool("go", true).unwrap();
    assert_eq!(step(&mut m, 0.25, &p).started, Some(0));
    // A still plays (fading out) and fires the event: ignored.
    let r = m.update(0.25, &p, &no_time, &[ev("kick", A)]);
    assert_eq!(r.started, None);
    assert_eq!(m.current(), B);
    // A differently named event from the current state: ignored.
    let r = m.update(0.25, &p, &no_time, &[ev("step", B)]);
    assert_eq!(r.started, None);
    // The same event fired by the current state: fires.
    let r = m.update(0.25, &p, &no_time, &[ev("kick", A), ev("kick", B)]);
    assert_eq!(r.started, Some(1));
    assert!(r.snapshot);
    assert_eq!(m.current(), C);

    // A transition from the fading-out state itself (reachable through Source
    // interruption) ignores that state's events too.
    let mut p = Params::new();
    p.declare_bool("go", false);
    let mut m = build(
        &abcd(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")], duration_secs: 1.0, interruption: Source),
               (from: "A", to: "C", conditions: [Event("kick")])"#,
        ),
        &p,
    );
    p.set_bool("go", true).unwrap();
    assert_eq!(step(&mut m, 0.25, &p).started, Some(0));
    let r = m.update(0.25, &p, &no_time, &[ev("kick", A)]);
    assert_eq!(r.started, None);
    assert_eq!(m.current(), B);
    // Back in A (current), A's event fires A -> C.
    p.set_bool("go", false).unwrap();
    m.reset();
    let r = m.update(0.25, &p, &no_time, &[ev("kick", B)]);
    assert_eq!(r.started, None, "an event of a state that is not playing");
    let r = m.update(0.25, &p, &no_time, &[ev("kick", A)]);
    assert_eq!(r.started, Some(1));
    assert_eq!(m.current(), C);
}

#[test]
fn exit_time_fires_at_the_source_states_normalized_time() {
    let p = Params::new();
    let mut m = build(
        &abcd(
            r#"(from: "A", to: "B", exit_time: Some(0.9)),
               (from: "B", to: "C", exit_time: Some(2.5), duration_secs: 0.0)"#,
        ),
        &p,
    );
    // Only A's time is 0.9-ish; every other state reports a time that would pass, so a
    // wrong state asked would show.
    for t in [0.0, 0.3, 0.6, 0.89, 0.8999] {
        let time = move |s: usize| if s == A { t } else { 100.0 };
        assert_eq!(m.update(0.1, &p, &time, &[]).started, None, "time {t}");
    }
    let time = |s: usize| if s == A { 0.9 } else { 100.0 };
    let r = m.update(0.1, &p, &time, &[]);
    assert_eq!(r.started, Some(0));
    assert_eq!(m.current(), B);
    // Exit times above 1 count loops: B -> C after 2.5 cycles.
    for _ in 0..5 {
        step(&mut m, 0.1, &p);
    }
    assert_eq!(m.weights(), &[(Slot::State(B), 1.0)]);
    for t in [0.5, 1.0, 2.49] {
        let time = move |s: usize| if s == B { t } else { 100.0 };
        assert_eq!(m.update(0.1, &p, &time, &[]).started, None, "time {t}");
    }
    let time = |s: usize| if s == B { 2.5 } else { 0.0 };
    assert_eq!(m.update(0.1, &p, &time, &[]).started, Some(1));
    // A NaN time never passes.
    m.reset();
    let nan = |_: usize| f32::NAN;
    assert_eq!(m.update(0.1, &p, &nan, &[]).started, None);
}

#[test]
fn exit_time_combines_with_conditions_and_any_state_uses_the_current_state() {
    let mut p = Params::new();
    p.declare_bool("go", true);
    let mut m = build(
        &abcd(r#"(from: "*", to: "D", conditions: [IsTrue("go")], exit_time: Some(0.5))"#),
        &p,
    );
    let time = |s: usize| if s == A { 0.4 } else { 1.0 };
    assert_eq!(m.update(0.1, &p, &time, &[]).started, None);
    p.set_bool("go", false).unwrap();
    let time = |s: usize| if s == A { 0.6 } else { 0.0 };
    assert_eq!(m.update(0.1, &p, &time, &[]).started, None);
    p.set_bool("go", true).unwrap();
    assert_eq!(m.update(0.1, &p, &time, &[]).started, Some(0));
    assert_eq!(m.current(), D);
    // "*" -> D is skipped while D is current, even though it holds.
    for _ in 0..10 {
        assert_eq!(m.update(0.1, &p, &|_| 1.0, &[]).started, None);
    }
}

#[test]
fn priority_orders_candidates_and_ties_keep_file_order() {
    let mut p = Params::new();
    p.declare_bool("go", true);
    let first_started = |transitions: &str| {
        let mut m = build(&abcd(transitions), &p);
        let r = step(&mut m, 0.1, &p);
        (r.started, m.current())
    };
    // Equal priority: file order.
    assert_eq!(
        first_started(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")]),
               (from: "A", to: "C", conditions: [IsTrue("go")])"#
        ),
        (Some(0), B)
    );
    // Higher priority first, wherever it is in the file.
    assert_eq!(
        first_started(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")]),
               (from: "A", to: "C", conditions: [IsTrue("go")], priority: 5),
               (from: "*", to: "D", conditions: [IsTrue("go")], priority: 5)"#
        ),
        (Some(1), C)
    );
    // "*" and the current state's transitions share one ordering.
    assert_eq!(
        first_started(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")], priority: 5),
               (from: "*", to: "D", conditions: [IsTrue("go")], priority: 6)"#
        ),
        (Some(1), D)
    );
    // Negative priorities sort after the default 0.
    assert_eq!(
        first_started(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")], priority: -1),
               (from: "A", to: "C", conditions: [IsTrue("go")])"#
        ),
        (Some(1), C)
    );
    // A higher-priority transition that does not hold lets the next one fire.
    assert_eq!(
        first_started(
            r#"(from: "A", to: "B", conditions: [IsFalse("go")], priority: 9),
               (from: "A", to: "C", conditions: [IsTrue("go")])"#
        ),
        (Some(1), C)
    );
}

#[test]
fn travel_and_reset() {
    let mut p = Params::new();
    p.declare_bool("go", false);
    let mut m = build(
        &abcd(r#"(from: "C", to: "A", conditions: [IsTrue("go")], duration_secs: 0.5)"#),
        &p,
    );
    // Instant travel.
    let r = m.travel(B, 0.0, Ease::Linear);
    assert_eq!(
        r,
        StepReport {
            started: None,
            entered: Some(B),
            snapshot: false,
            finished: Some(B),
            inertialize: None
        }
    );
    assert_eq!(m.weights(), &[(Slot::State(B), 1.0)]);
    // A fade; travel again halfway: snapshot.
    let r = m.travel(C, 1.0, Ease::Linear);
    assert_eq!(r.entered, Some(C));
    assert!(!r.snapshot);
    step(&mut m, 0.5, &p);
    assert_eq!(m.weights(), &[(Slot::State(B), 0.5), (Slot::State(C), 0.5)]);
    // Automatic transitions do not interrupt a travel.
    p.set_bool("go", true).unwrap();
    assert_eq!(step(&mut m, 0.25, &p).started, None);
    let r = m.travel(D, 1.0, Ease::Linear);
    assert!(r.snapshot);
    assert_eq!(m.weights(), &[(Slot::Snapshot, 1.0), (Slot::State(D), 0.0)]);
    // Travel to the current state: nothing, except duration 0 completes the fade.
    assert_eq!(m.travel(D, 1.0, Ease::Linear), StepReport::default());
    assert_eq!(m.weights().len(), 2);
    assert_eq!(m.travel(D, 0.0, Ease::Linear).finished, Some(D));
    assert_eq!(m.weights(), &[(Slot::State(D), 1.0)]);
    // Out of range: nothing.
    assert_eq!(m.travel(17, 0.0, Ease::Linear), StepReport::default());
    assert_eq!(m.current(), D);
    // Negative or NaN durations are instant.
    assert_eq!(m.travel(C, f32::NAN, Ease::Linear).finished, Some(C));
    // C -> A now fires again (go is true).
    assert_eq!(step(&mut m, 0.1, &p).started, Some(0));
    m.reset();
    assert_eq!(m.current(), A);
    assert_eq!(m.weights(), &[(Slot::State(A), 1.0)]);
    assert_eq!(m.transition_progress(), None);
}

#[test]
fn bad_frame_times_do_not_advance_or_panic() {
    let mut p = Params::new();
    p.declare_bool("go", true);
    let mut m = build(
        &abcd(
            r#"(from: "A", to: "B", conditions: [IsTrue("go")], duration_secs: 1.0, ease: Linear)"#,
        ),
        &p,
    );
    step(&mut m, 0.1, &p);
    for dt in [f32::NAN, -1.0, f32::INFINITY, f32::NEG_INFINITY] {
        step(&mut m, dt, &p);
        assert_eq!(m.weights(), &[(Slot::State(A), 1.0), (Slot::State(B), 0.0)]);
    }
}

#[test]
fn params_are_typed_and_ordered() {
    let mut p = Params::new();
    assert!(p.is_empty());
    p.declare_float("speed", 1.5);
    p.declare_bool("grounded", true);
    p.declare_float("lean", f32::NAN);
    assert_eq!(p.len(), 3);
    assert_eq!(p.names().collect::<Vec<_>>(), ["speed", "grounded", "lean"]);
    assert_eq!(
        p.get_float("lean"),
        Some(0.0),
        "a NaN default is stored as 0"
    );
    assert_eq!(p.get_float("speed"), Some(1.5));
    assert_eq!(p.get_bool("grounded"), Some(true));
    assert_eq!(p.get_float("grounded"), None);
    assert_eq!(p.get_bool("speed"), None);
    assert_eq!(p.get("nothing"), None);

    assert!(p.set_float("speed", 3.0).is_ok());
    assert_eq!(p.get_float("speed"), Some(3.0));
    assert_eq!(
        p.set_float("grounded", 1.0),
        Err(ParamError::WrongType {
            name: "grounded".into(),
            is: "bool",
            wanted: "float",
            needs: None
        })
    );
    assert_eq!(
        p.set_float("grounded", 1.0).unwrap_err().to_string(),
        "parameter 'grounded' is a bool, not a float"
    );
    assert_eq!(
        p.set_bool("speed", true).unwrap_err().to_string(),
        "parameter 'speed' is a float, not a bool"
    );
    assert_eq!(
        p.set_float("sped", 1.0),
        Err(ParamError::Unknown("sped".into()))
    );
    assert_eq!(
        p.set_float("sped", 1.0).unwrap_err().to_string(),
        "unknown parameter 'sped'"
    );
    assert!(p.set_float("speed", f32::INFINITY).is_err());
    assert_eq!(
        p.get_float("speed"),
        Some(3.0),
        "a rejected value keeps the old one"
    );
    assert!(p.set("grounded", ParamValue::Bool(false)).is_ok());

    // Re-declaring replaces in place, keeping the order.
    p.declare_bool("speed", false);
    assert_eq!(
        p.iter().collect::<Vec<_>>(),
        [
            ("speed", ParamValue::Bool(false)),
            ("grounded", ParamValue::Bool(false)),
            ("lean", ParamValue::Float(0.0)),
        ]
    );
}

#[test]
fn definitions_built_in_code() {
    let mut p = Params::new();
    p.declare_float("speed", 0.0);
    let mut t = TransitionDef::new("Idle", "Walk");
    t.conditions.push(Condition::Greater {
        param: "speed".to_string(),
        value: 0.5,
        band: 0.0,
    });
    assert_eq!(t.duration_secs, 0.25);
    let def = StateMachineDef {
        initial: "Idle".to_string(),
        states: vec![
            StateDef {
                name: "Idle".to_string(),
                node: (),
            },
            StateDef {
                name: "Walk".to_string(),
                node: (),
            },
        ],
        transitions: vec![t],
    };
    let mut m = StateMachine::new(&def, &p).expect("valid");
    p.set_float("speed", 0.6).unwrap();
    assert_eq!(step(&mut m, 0.1, &p).started, Some(0));

    // NaN value built in code.
    let mut bad = def.clone();
    bad.transitions[0].conditions[0] = Condition::Less {
        param: "speed".to_string(),
        value: f32::NAN,
        band: 0.0,
    };
    let e = StateMachine::new(&bad, &p).expect_err("NaN value");
    assert!(matches!(
        &e,
        StateMachineError::Transition {
            problem: TransitionProblem::Condition {
                index: 0,
                error: ParamError::ThresholdNotFinite { .. }
            },
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        "state 'Idle': transition 'Idle -> Walk': condition 0: 'speed': value NaN is not finite"
    );
    // No states at all.
    let empty: StateMachineDef<()> = StateMachineDef {
        initial: "Idle".to_string(),
        states: vec![],
        transitions: vec![],
    };
    assert!(StateMachine::new(&empty, &p).is_err());
}
