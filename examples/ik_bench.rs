//! The Rust half of the two-bone IK comparison with ozz-animation
//! (`benches/ozz_ik/run.sh`): the demo's left leg at Walk 0.3 s, target 5 cm forward of
//! the FK foot, knee axis from the pose, pole +Z.
//!
//! - `ik_bench --export FILE` writes the input (three model matrices column-major, target,
//!   pole, mid axis: 57 numbers) for the C++ side.
//! - `ik_bench` times `TwoBoneIkJob::run` like the C++ side (one warm-up batch, 15 batches
//!   of 10,000 calls, median ns/call) and prints the end joint's position after the
//!   corrections.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use glam::{Mat4, Vec3};
use stridescope::anim::contacts::detect_legs;
use stridescope::anim::ik::{knee_axis, TwoBoneIkJob};
use stridescope::anim::{LocalToModelJob, SamplingJob};
use stridescope::asset;

fn job() -> Result<TwoBoneIkJob, String> {
    let model = asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb"))
        .map_err(|e| e.to_string())?;
    let sk = &model.skeleton;
    let clip = model.find_clip("Walk").ok_or("no Walk")?;
    let mut local = sk.rest_pose().to_vec();
    SamplingJob {
        clip: &model.clips[clip],
        time_secs: 0.3,
        rest_pose: sk.rest_pose(),
    }
    .run(&mut local)
    .map_err(|e| e.to_string())?;
    let mut fk = vec![Mat4::IDENTITY; local.len()];
    LocalToModelJob {
        parents: sk.parents(),
        local: &local,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut fk)
    .map_err(|e| e.to_string())?;
    let legs = detect_legs(sk).map_err(|e| e.to_string())?;
    let leg = &legs[0];
    let p = |j: usize| fk[j].w_axis.truncate();
    Ok(TwoBoneIkJob {
        target: p(leg.foot) + Vec3::Z * 0.05,
        pole_vector: Vec3::Z,
        mid_axis: knee_axis(p(leg.thigh), &fk[leg.calf], p(leg.foot), -Vec3::X).normalize(),
        start_joint: fk[leg.thigh],
        mid_joint: fk[leg.calf],
        end_joint: fk[leg.foot],
        ..TwoBoneIkJob::default()
    })
}

fn main() -> Result<(), String> {
    let job = job()?;
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--export") {
        let path = args.get(i + 1).ok_or("--export FILE")?;
        let mut numbers: Vec<f32> = Vec::new();
        for m in [job.start_joint, job.mid_joint, job.end_joint] {
            numbers.extend_from_slice(&m.to_cols_array());
        }
        for v in [job.target, job.pole_vector, job.mid_axis] {
            numbers.extend_from_slice(&v.to_array());
        }
        let text: Vec<String> = numbers.iter().map(|x| format!("{x:.9e}")).collect();
        std::fs::write(path, text.join("\n") + "\n").map_err(|e| format!("{path}: {e}"))?;
        return Ok(());
    }
    let mut ns = Vec::new();
    let mut result = job.run().map_err(|e| e.to_string())?;
    for batch in -1..15 {
        let t0 = Instant::now();
        for _ in 0..10_000 {
            result = black_box(&job).run().map_err(|e| e.to_string())?;
            black_box(&result);
        }
        if batch >= 0 {
            ns.push(t0.elapsed().as_nanos() as f64 / 10_000.0);
        }
    }
    ns.sort_by(f64::total_cmp);
    let e = result.end_position;
    println!(
        "stridescope two_bone_ik {:.2} ns/call end {:.6} {:.6} {:.6} reached {}",
        ns[ns.len() / 2],
        e.x,
        e.y,
        e.z,
        u8::from(result.reached)
    );
    Ok(())
}
