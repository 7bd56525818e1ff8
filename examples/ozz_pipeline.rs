//! The stridescope side of the ozz-animation 0.16 pipeline comparison
//! (`benches/ozz_pipeline/run.sh`; issue 23). Started from ../shared/bench/ozz's harness,
//! with the real `BlendingJob` in place of its harness loop and a row for a whole pose-graph
//! frame.
//!
//! Usage:
//!   ozz_pipeline [--assets DIR]                 run the benchmarks, print `I`/`C`/`R` lines
//!   ozz_pipeline [--assets DIR] --export DIR    write the skinning meshes the C++ side reads
//!
//! Output lines (parsed by run.sh):
//!   I <model> <key> <value...>   information (joint counts, vertex counts)
//!   C <model> <check> x y z      sanity check values, comparable with the ozz harness
//!   R <model> <op> <ns/call>     median over BATCHES batches of ns per call
//!
//! Timing: each op runs one warm-up batch, then BATCHES batches of `calls` calls;
//! ns/call of each batch, median reported. Playback ops advance each clip's time by
//! STEP s per call and wrap at the clip's duration. Same constants as ozz_bench.cc.

use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::{Mat4, Vec3};
use stridescope::anim::blend::blending::{BlendLayer, BlendingJob};
use stridescope::anim::blend::soa::{SoaBlendLayer, SoaBlendingJob};
use stridescope::anim::soa::{soa_len, SoaTransform};
use stridescope::anim::{
    skinning_palette, Clip, LocalToModelJob, PreparedSkin, PreparedSkinningJob, SamplingCache,
    SamplingJob, SkinningJob, SoaLocalToModelJob, SoaSamplingJob, Transform, MAX_INFLUENCES,
};
use stridescope::asset::Model;
use stridescope::graph::def::{GraphDef, NodeDef, ParamDef, Sample1DDef, SyncMode};
use stridescope::stage::pose::Pose;
use stridescope::stage::session::GraphSession;

const STEP: f32 = 0.0137;
const BATCHES: usize = 15;
const CALLS: usize = 10_000;
const SKIN_CALLS: usize = 200;
const SYNTH_VERTICES: usize = 10_000;
const CHECK_TIME: f32 = 0.3;

/// (label, file under assets, clip A, clip B)
const MODELS: [(&str, &str, &str, &str); 2] = [
    ("Robot", "Robot/robot.glb", "Robot_Walking", "Robot_Running"),
    ("Fox", "Fox/Fox.glb", "Walk", "Run"),
];

/// A skinning mesh with at most 4 influences per vertex, weights sorted descending and
/// normalised to sum 1 (the layout both harnesses use).
struct Mesh4 {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    /// Non-zero influences per vertex (1..=4).
    counts: Vec<u32>,
}

/// The same mesh in stridescope's 8-slot layout.
struct MeshSs {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    joints: Vec<[u16; MAX_INFLUENCES]>,
    weights: Vec<[f32; MAX_INFLUENCES]>,
}

impl Mesh4 {
    fn to_ss(&self) -> MeshSs {
        let mut joints = Vec::with_capacity(self.joints.len());
        let mut weights = Vec::with_capacity(self.joints.len());
        for (j, w) in self.joints.iter().zip(&self.weights) {
            let mut jj = [0u16; MAX_INFLUENCES];
            let mut ww = [0f32; MAX_INFLUENCES];
            jj[..4].copy_from_slice(j);
            ww[..4].copy_from_slice(w);
            joints.push(jj);
            weights.push(ww);
        }
        MeshSs {
            positions: self.positions.clone(),
            normals: self.normals.clone(),
            joints,
            weights,
        }
    }
}

/// Every primitive of every mesh bound to skin 0, concatenated; top 4 influences.
fn real_mesh(model: &Model) -> Mesh4 {
    let mut m = Mesh4 {
        positions: vec![],
        normals: vec![],
        joints: vec![],
        weights: vec![],
        counts: vec![],
    };
    for mesh in model.meshes.iter().filter(|m| m.skin == Some(0)) {
        for p in &mesh.primitives {
            for v in 0..p.positions.len() {
                let mut inf: Vec<(f32, u16)> = p.weights[v]
                    .iter()
                    .zip(&p.joints[v])
                    .filter(|(w, _)| **w > 0.0)
                    .map(|(w, j)| (*w, *j))
                    .collect();
                inf.sort_by(|a, b| b.0.total_cmp(&a.0));
                inf.truncate(4);
                if inf.is_empty() {
                    inf.push((1.0, 0));
                }
                let sum: f32 = inf.iter().map(|x| x.0).sum();
                let mut j = [0u16; 4];
                let mut w = [0f32; 4];
                for (k, (wk, jk)) in inf.iter().enumerate() {
                    j[k] = *jk;
                    w[k] = wk / sum;
                }
                m.positions.push(p.positions[v]);
                m.normals.push(p.normals[v]);
                m.joints.push(j);
                m.weights.push(w);
                m.counts.push(inf.len() as u32);
            }
        }
    }
    m
}

/// SYNTH_VERTICES vertices (positions/normals cycled from the real mesh), each with 4
/// distinct random palette joints and random non-zero weights.
fn synth_mesh(real: &Mesh4, palette_len: usize) -> Mesh4 {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as u32
    };
    let n = real.positions.len();
    let mut m = Mesh4 {
        positions: vec![],
        normals: vec![],
        joints: vec![],
        weights: vec![],
        counts: vec![],
    };
    for v in 0..SYNTH_VERTICES {
        let mut j = [0u16; 4];
        let mut k = 0;
        while k < 4 {
            let c = (rnd() as usize % palette_len) as u16;
            if !j[..k].contains(&c) {
                j[k] = c;
                k += 1;
            }
        }
        let mut w = [0f32; 4];
        for x in &mut w {
            *x = 0.05 + (rnd() % 1000) as f32 / 1000.0;
        }
        w.sort_by(|a, b| b.total_cmp(a));
        let sum: f32 = w.iter().sum();
        for x in &mut w {
            *x /= sum;
        }
        m.positions.push(real.positions[v % n]);
        m.normals.push(real.normals[v % n]);
        m.joints.push(j);
        m.weights.push(w);
        m.counts.push(4);
    }
    m
}

/// Binary layout read by ozz_bench.cc (little endian):
/// "SSM1", u32 P, P x {u32 len, name bytes, 16 f32 inverse bind (column-major)},
/// u32 V, V x {3 f32 pos, 3 f32 normal, 4 u16 joints, 4 f32 weights, u32 count}.
fn export(path: &Path, model: &Model, mesh: &Mesh4) -> std::io::Result<()> {
    let skin = &model.skins[0];
    let mut b: Vec<u8> = b"SSM1".to_vec();
    b.extend((skin.joints.len() as u32).to_le_bytes());
    for (&j, ib) in skin.joints.iter().zip(&skin.inverse_bind) {
        let name = model.skeleton.names()[j].as_bytes();
        b.extend((name.len() as u32).to_le_bytes());
        b.extend(name);
        for f in ib.to_cols_array() {
            b.extend(f.to_le_bytes());
        }
    }
    b.extend((mesh.positions.len() as u32).to_le_bytes());
    for v in 0..mesh.positions.len() {
        for f in mesh.positions[v].to_array() {
            b.extend(f.to_le_bytes());
        }
        for f in mesh.normals[v].to_array() {
            b.extend(f.to_le_bytes());
        }
        for j in mesh.joints[v] {
            b.extend(j.to_le_bytes());
        }
        for w in mesh.weights[v] {
            b.extend(w.to_le_bytes());
        }
        b.extend(mesh.counts[v].to_le_bytes());
    }
    std::fs::File::create(path)?.write_all(&b)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// One warm-up batch, then BATCHES timed batches of `calls` calls; median ns/call.
fn measure(calls: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..calls {
        f();
    }
    let mut per_call = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        let t0 = Instant::now();
        for _ in 0..calls {
            f();
        }
        per_call.push(t0.elapsed().as_nanos() as f64 / calls as f64);
    }
    median(per_call)
}

/// stridescope's `BlendingJob` on two layers (as ozz's `BlendingJob` with two layers and
/// its default threshold).
#[inline(never)]
fn blend2(
    rest: &[Transform],
    a: &[Transform],
    b: &[Transform],
    wa: f32,
    wb: f32,
    out: &mut [Transform],
) {
    let layers = [
        BlendLayer {
            pose: a,
            weight: wa,
            joint_weights: None,
        },
        BlendLayer {
            pose: b,
            weight: wb,
            joint_weights: None,
        },
    ];
    BlendingJob {
        layers: &layers,
        rest_pose: rest,
        threshold: BlendingJob::DEFAULT_THRESHOLD,
    }
    .run(out)
    .unwrap();
}

/// stridescope's `SoaBlendingJob` on two layers (the SoA pipeline's blend).
#[inline(never)]
fn blend2_soa(
    rest: &[SoaTransform],
    a: &[SoaTransform],
    b: &[SoaTransform],
    wa: f32,
    wb: f32,
    out: &mut [SoaTransform],
) {
    let layers = [
        SoaBlendLayer {
            pose: a,
            weight: wa,
            joint_weights: None,
        },
        SoaBlendLayer {
            pose: b,
            weight: wb,
            joint_weights: None,
        },
    ];
    SoaBlendingJob {
        layers: &layers,
        rest_pose: rest,
        threshold: SoaBlendingJob::DEFAULT_THRESHOLD,
    }
    .run(out)
    .unwrap();
}

/// A pose graph blending clips `a` and `b` half and half (a 1D blend space, no sync: the
/// clips run at their own rates, as the other rows do).
fn two_clip_graph(model: &Model, a: &Clip, b: &Clip) -> GraphSession {
    let def = GraphDef {
        params: vec![ParamDef::Float {
            name: "weight".into(),
            default: 0.5,
            min: Some(0.0),
            max: Some(1.0),
        }],
        base: NodeDef::BlendSpace1D {
            param: "weight".into(),
            samples: vec![
                Sample1DDef {
                    clip: a.name().to_string(),
                    position: Some(0.0),
                },
                Sample1DDef {
                    clip: b.name().to_string(),
                    position: Some(1.0),
                },
            ],
            sync: SyncMode::None,
        },
        layers: Vec::new(),
    };
    let mut session = GraphSession::new(model, &def).unwrap();
    session.playing = true;
    session
}

fn advance(t: &mut f32, duration: f32) {
    *t += STEP;
    if *t >= duration {
        *t %= duration;
    }
}

fn centroid(p: &[Vec3]) -> Vec3 {
    p.iter().copied().sum::<Vec3>() / p.len() as f32
}

fn find_clip<'a>(model: &'a Model, name: &str) -> &'a Clip {
    &model.clips[model
        .find_clip(name)
        .unwrap_or_else(|| panic!("clip {name} not found"))]
}

fn bench_model(label: &str, model: &Model, clip_a: &Clip, clip_b: &Clip) {
    let sk = &model.skeleton;
    let n = sk.joint_count();
    let rest = sk.rest_pose();
    let skin = &model.skins[0];
    println!("I {label} skeleton_joints {n}");
    println!("I {label} skin_joints {}", skin.joints.len());
    println!(
        "I {label} clip_a {} duration {:.6} channels {}",
        clip_a.name(),
        clip_a.duration_secs(),
        clip_a.channel_count()
    );
    println!(
        "I {label} clip_b {} duration {:.6} channels {}",
        clip_b.name(),
        clip_b.duration_secs(),
        clip_b.channel_count()
    );
    let real = real_mesh(model);
    let synth = synth_mesh(&real, skin.joints.len());
    let hist: Vec<usize> = (1..=4)
        .map(|k| real.counts.iter().filter(|&&c| c == k).count())
        .collect();
    println!(
        "I {label} real_mesh_vertices {} influences_1..4 {:?}",
        real.positions.len(),
        hist
    );
    let real_ss = real.to_ss();
    let synth_ss = synth.to_ss();

    let mut local_a = vec![Transform::IDENTITY; n];
    let mut local_b = vec![Transform::IDENTITY; n];
    let mut blended = vec![Transform::IDENTITY; n];
    let mut model_m = vec![Mat4::IDENTITY; n];
    let mut palette = vec![Mat4::IDENTITY; skin.joints.len()];
    let mut cache_a = SamplingCache::new();
    let mut cache_b = SamplingCache::new();
    let (dur_a, dur_b) = (clip_a.duration_secs(), clip_b.duration_secs());

    // Sanity checks (comparable with ozz): skinned real-mesh centroid at CHECK_TIME, for
    // clip A alone and for the 0.5/0.5 blend of A and B.
    let mut out_p = vec![Vec3::ZERO; synth.positions.len().max(real.positions.len())];
    let mut out_n = out_p.clone();
    for blend in [false, true] {
        SamplingJob {
            clip: clip_a,
            time_secs: CHECK_TIME,
            rest_pose: rest,
        }
        .run(&mut local_a)
        .unwrap();
        let pose: &[Transform] = if blend {
            SamplingJob {
                clip: clip_b,
                time_secs: CHECK_TIME,
                rest_pose: rest,
            }
            .run(&mut local_b)
            .unwrap();
            blend2(rest, &local_a, &local_b, 0.5, 0.5, &mut blended);
            &blended
        } else {
            &local_a
        };
        LocalToModelJob {
            parents: sk.parents(),
            local: pose,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model_m)
        .unwrap();
        skinning_palette(&model_m, skin, &mut palette).unwrap();
        let nv = real.positions.len();
        SkinningJob {
            palette: &palette,
            positions: &real_ss.positions,
            normals: &real_ss.normals,
            joints: &real_ss.joints,
            weights: &real_ss.weights,
        }
        .run(&mut out_p[..nv], &mut out_n[..nv])
        .unwrap();
        let c = centroid(&out_p[..nv]);
        let what = if blend {
            "skinned_centroid_blend"
        } else {
            "skinned_centroid_a"
        };
        println!("C {label} {what} {:.5} {:.5} {:.5}", c.x, c.y, c.z);
    }
    // The skinning ops use the palette of clip A at CHECK_TIME.
    SamplingJob {
        clip: clip_a,
        time_secs: CHECK_TIME,
        rest_pose: rest,
    }
    .run(&mut local_a)
    .unwrap();
    LocalToModelJob {
        parents: sk.parents(),
        local: &local_a,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut model_m)
    .unwrap();
    skinning_palette(&model_m, skin, &mut palette).unwrap();

    // (a) one clip, cached sampling.
    let mut t = 0.0f32;
    let ns = measure(CALLS, || {
        advance(&mut t, dur_a);
        SamplingJob {
            clip: clip_a,
            time_secs: black_box(t),
            rest_pose: rest,
        }
        .run_with_cache(&mut cache_a, &mut local_a)
        .unwrap();
        black_box(&mut local_a);
    });
    println!("R {label} sample_aos {ns:.1}");

    // (a') clip B alone, for the decomposition of (b).
    let mut t = 0.0f32;
    let ns = measure(CALLS, || {
        advance(&mut t, dur_b);
        SamplingJob {
            clip: clip_b,
            time_secs: black_box(t),
            rest_pose: rest,
        }
        .run_with_cache(&mut cache_b, &mut local_b)
        .unwrap();
        black_box(&mut local_b);
    });
    println!("R {label} sample_b_aos {ns:.1}");

    // (b) 2 clips + BlendingJob (0.5/0.5) + local-to-model.
    let (mut ta, mut tb) = (0.0f32, 0.0f32);
    let ns = measure(CALLS, || {
        advance(&mut ta, dur_a);
        advance(&mut tb, dur_b);
        SamplingJob {
            clip: clip_a,
            time_secs: black_box(ta),
            rest_pose: rest,
        }
        .run_with_cache(&mut cache_a, &mut local_a)
        .unwrap();
        SamplingJob {
            clip: clip_b,
            time_secs: black_box(tb),
            rest_pose: rest,
        }
        .run_with_cache(&mut cache_b, &mut local_b)
        .unwrap();
        blend2(
            rest,
            &local_a,
            &local_b,
            black_box(0.5),
            black_box(0.5),
            &mut blended,
        );
        LocalToModelJob {
            parents: sk.parents(),
            local: &blended,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model_m)
        .unwrap();
        black_box(&mut model_m);
    });
    println!("R {label} full_aos {ns:.1}");

    // (e) a whole pose-graph frame: the graph's clocks advanced (root motion included),
    // its two inputs sampled and blended, local-to-model and the skinning palettes, as the
    // window evaluates a frame (`GraphSession::tick` + `evaluate_pose`).
    let mut session = two_clip_graph(model, clip_a, clip_b);
    let mut pose = Pose::new(model);
    let ns = measure(CALLS, || {
        session.tick(model, black_box(f64::from(STEP)));
        session
            .evaluate_pose(model, Mat4::IDENTITY, &mut pose)
            .unwrap();
        black_box(&mut pose);
    });
    println!("R {label} frame {ns:.1}");

    // (b') the blend alone, on the two poses (b) sampled last.
    let ns = measure(CALLS, || {
        blend2(
            rest,
            black_box(&local_a),
            black_box(&local_b),
            black_box(0.5),
            black_box(0.5),
            &mut blended,
        );
        black_box(&mut blended);
    });
    println!("R {label} blend_aos {ns:.1}");

    // (c) local-to-model alone (on the last blended pose).
    let ns = measure(CALLS, || {
        LocalToModelJob {
            parents: sk.parents(),
            local: black_box(&blended),
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model_m)
        .unwrap();
        black_box(&mut model_m);
    });
    println!("R {label} l2m_aos {ns:.1}");

    // The SoA pipeline (four joints per block, as ozz): rows (a), (a'), (b), (b'), (c).
    let rest_soa = sk.rest_pose_soa();
    let nb = soa_len(n);
    let mut soa_a = vec![SoaTransform::IDENTITY; nb];
    let mut soa_b = vec![SoaTransform::IDENTITY; nb];
    let mut soa_blended = vec![SoaTransform::IDENTITY; nb];
    let mut cache_a = SamplingCache::new();
    let mut cache_b = SamplingCache::new();
    let mut t = 0.0f32;
    let ns = measure(CALLS, || {
        advance(&mut t, dur_a);
        SoaSamplingJob {
            clip: clip_a,
            time_secs: black_box(t),
            rest_pose: rest_soa,
        }
        .run_with_cache(&mut cache_a, &mut soa_a)
        .unwrap();
        black_box(&mut soa_a);
    });
    println!("R {label} sample {ns:.1}");
    let mut t = 0.0f32;
    let ns = measure(CALLS, || {
        advance(&mut t, dur_b);
        SoaSamplingJob {
            clip: clip_b,
            time_secs: black_box(t),
            rest_pose: rest_soa,
        }
        .run_with_cache(&mut cache_b, &mut soa_b)
        .unwrap();
        black_box(&mut soa_b);
    });
    println!("R {label} sample_b {ns:.1}");
    let (mut ta, mut tb) = (0.0f32, 0.0f32);
    let ns = measure(CALLS, || {
        advance(&mut ta, dur_a);
        advance(&mut tb, dur_b);
        SoaSamplingJob {
            clip: clip_a,
            time_secs: black_box(ta),
            rest_pose: rest_soa,
        }
        .run_with_cache(&mut cache_a, &mut soa_a)
        .unwrap();
        SoaSamplingJob {
            clip: clip_b,
            time_secs: black_box(tb),
            rest_pose: rest_soa,
        }
        .run_with_cache(&mut cache_b, &mut soa_b)
        .unwrap();
        blend2_soa(
            rest_soa,
            &soa_a,
            &soa_b,
            black_box(0.5),
            black_box(0.5),
            &mut soa_blended,
        );
        SoaLocalToModelJob {
            parents: sk.parents(),
            local: &soa_blended,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model_m)
        .unwrap();
        black_box(&mut model_m);
    });
    println!("R {label} full {ns:.1}");
    let ns = measure(CALLS, || {
        blend2_soa(
            rest_soa,
            black_box(&soa_a),
            black_box(&soa_b),
            black_box(0.5),
            black_box(0.5),
            &mut soa_blended,
        );
        black_box(&mut soa_blended);
    });
    println!("R {label} blend {ns:.1}");
    let ns = measure(CALLS, || {
        SoaLocalToModelJob {
            parents: sk.parents(),
            local: black_box(&soa_blended),
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model_m)
        .unwrap();
        black_box(&mut model_m);
    });
    println!("R {label} l2m {ns:.1}");

    // (d) skinning, positions + normals: the prepared job (influences grouped and
    // normalised and the bind pose laid out once, as ozz's parts are built once outside
    // its timing), its parallel version, and the per-call oracle.
    for (op, mesh) in [("skin_synth4", &synth_ss), ("skin_real", &real_ss)] {
        let nv = mesh.positions.len();
        let skin =
            PreparedSkin::new(&mesh.joints, &mesh.weights, &mesh.positions, &mesh.normals).unwrap();
        let prepared = |out_p: &mut [Vec3], out_n: &mut [Vec3], parallel: bool| {
            let job = PreparedSkinningJob {
                palette: black_box(&palette),
                skin: &skin,
            };
            if parallel {
                job.run_parallel(out_p, out_n).unwrap();
            } else {
                job.run(out_p, out_n).unwrap();
            }
        };
        let ns = measure(SKIN_CALLS, || {
            prepared(&mut out_p[..nv], &mut out_n[..nv], false);
            black_box(&mut out_p);
        });
        println!("R {label} {op} {ns:.1}");
        let ns = measure(SKIN_CALLS, || {
            prepared(&mut out_p[..nv], &mut out_n[..nv], true);
            black_box(&mut out_p);
        });
        println!("R {label} {op}_parallel {ns:.1}");
        let ns = measure(SKIN_CALLS, || {
            SkinningJob {
                palette: black_box(&palette),
                positions: &mesh.positions,
                normals: &mesh.normals,
                joints: &mesh.joints,
                weights: &mesh.weights,
            }
            .run(&mut out_p[..nv], &mut out_n[..nv])
            .unwrap();
            black_box(&mut out_p);
        });
        println!("R {label} {op}_oracle {ns:.1}");
    }
}

/// FTZ=1 in the environment: set the SSE flush-to-zero and denormals-are-zero bits
/// (MXCSR 0x8040) before benchmarking, to show what subnormal arithmetic costs.
fn maybe_ftz() -> bool {
    if std::env::var("FTZ").map_or(true, |v| v.is_empty() || v == "0") {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    #[allow(deprecated)]
    // SAFETY: only changes the float environment of this thread (the only one).
    unsafe {
        use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
        _mm_setcsr(_mm_getcsr() | 0x8040);
    }
    true
}

fn main() {
    let ftz = maybe_ftz();
    let mut assets = PathBuf::from("../shared/assets");
    let mut export_dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--assets" => assets = args.next().expect("--assets DIR").into(),
            "--export" => export_dir = Some(args.next().expect("--export DIR").into()),
            other => panic!("unknown argument {other}"),
        }
    }
    for (label, file, a, b) in MODELS {
        let model = stridescope::asset::load(&assets.join(file))
            .unwrap_or_else(|e| panic!("loading {file}: {e}"));
        if let Some(dir) = &export_dir {
            std::fs::create_dir_all(dir).unwrap();
            let real = real_mesh(&model);
            let synth = synth_mesh(&real, model.skins[0].joints.len());
            export(&dir.join(format!("{label}_real.mesh")), &model, &real).unwrap();
            export(&dir.join(format!("{label}_synth.mesh")), &model, &synth).unwrap();
            continue;
        }
        let (clip_a, clip_b) = (find_clip(&model, a), find_clip(&model, b));
        println!("I {label} ftz_daz {}", if ftz { "on" } else { "off" });
        bench_model(label, &model, clip_a, clip_b);
    }
}
