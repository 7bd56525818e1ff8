//! `stridescope snapshot`: the posed mesh at one clip time as Wavefront OBJ (every mesh of
//! the scene, morphed and skinned on the CPU, world space), to compare with what another
//! tool exported at that frame.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use glam::Vec3;

use crate::asset::{self, bone_shapes::BONE_MESH_NAME, LoadOptions, Model, SourceFormat};
use crate::render::bounds::cpu_skin_primitive;
use crate::render::PoseMatrices;
use crate::{CliError, Context as _};

/// The arguments of `stridescope snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// glTF/GLB, FBX or BVH file (the built-in demo character when omitted).
    pub file: Option<PathBuf>,
    /// Clip (take) name (default: the first clip that animates; the rest pose when the
    /// file has none).
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time in seconds: 0 is the start of the clip (an FBX take running from 20/24 s
    /// to 40/24 s of the scene has clip time 0 at scene time 20/24 s).
    #[arg(long, allow_negative_numbers = true, conflicts_with = "frame")]
    pub time: Option<f64>,
    /// Clip frame N: clip time N / the clip's frame rate (FBX, BVH).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub frame: Option<f64>,
    /// Where to write the OBJ.
    #[arg(long, value_name = "OUT.obj")]
    pub obj: PathBuf,
    /// Write in the file's own units and axes (FBX: as the file declares them; BVH: file
    /// units) instead of metres, +Y up.
    #[arg(long)]
    pub source_space: bool,
}

/// The posed geometry of a model: triangle meshes, or for a model without a mesh bound to
/// its skeleton (a BVH take) its joints as points and its bones as lines.
#[derive(Clone, Debug, Default)]
pub struct PosedMesh {
    /// Per mesh: its name, vertex positions and triangles (indices into its positions).
    pub meshes: Vec<(String, Vec<Vec3>, Vec<[u32; 3]>)>,
    /// Joint positions (only when there is no mesh).
    pub joints: Vec<Vec3>,
    /// Bones as (parent, child) joint indices (only when there is no mesh).
    pub bones: Vec<(usize, usize)>,
}

impl PosedMesh {
    /// Every vertex (or joint) position.
    pub fn points(&self) -> Vec<Vec3> {
        let mut out: Vec<Vec3> = self
            .meshes
            .iter()
            .flat_map(|(_, p, _)| p.iter().copied())
            .collect();
        out.extend(&self.joints);
        out
    }

    /// Scales every position (file units from metres: `1 / metres per unit`).
    pub fn scale(&mut self, factor: f32) {
        for (_, p, _) in &mut self.meshes {
            for v in p {
                *v *= factor;
            }
        }
        for j in &mut self.joints {
            *j *= factor;
        }
    }

    /// As Wavefront OBJ text, with a comment line first.
    pub fn to_obj(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            let _ = writeln!(out, "# {line}");
        }
        let mut base = 1usize;
        for (name, positions, triangles) in &self.meshes {
            let _ = writeln!(out, "o {}", name.replace(char::is_whitespace, "_"));
            for v in positions {
                let _ = writeln!(out, "v {} {} {}", v.x, v.y, v.z);
            }
            for t in triangles {
                let _ = writeln!(
                    out,
                    "f {} {} {}",
                    base + t[0] as usize,
                    base + t[1] as usize,
                    base + t[2] as usize
                );
            }
            base += positions.len();
        }
        if !self.joints.is_empty() {
            let _ = writeln!(out, "o skeleton");
            for v in &self.joints {
                let _ = writeln!(out, "v {} {} {}", v.x, v.y, v.z);
            }
            for j in 0..self.joints.len() {
                let _ = writeln!(out, "p {}", base + j);
            }
            for (a, b) in &self.bones {
                let _ = writeln!(out, "l {} {}", base + a, base + b);
            }
        }
        out
    }
}

/// Poses `model` at `time_secs` of clip `clip` (`None`: the rest pose) and returns every
/// mesh morphed and skinned (model space, the model's units), or the joints and bones when
/// no mesh is bound to the skeleton (bone shapes drawn for a BVH do not count).
pub fn posed_mesh(
    model: &Model,
    clip: Option<usize>,
    time_secs: f32,
) -> Result<PosedMesh, CliError> {
    let mut pose = crate::stage::pose::pose_at(model, clip, time_secs)?;
    let mut weights = model.default_morph_weights();
    model.morph_weights_at(clip, time_secs, &mut weights);
    pose.set_morph_weights(&weights);
    let mut out = PosedMesh::default();
    for (m, mesh) in model.meshes.iter().enumerate() {
        if mesh.name == BONE_MESH_NAME {
            continue;
        }
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        for p in 0..mesh.primitives.len() {
            let (posed, _) = cpu_skin_primitive(model, &pose, m, p, false)
                .with_context(|| format!("{}: mesh '{}'", model.source, mesh.name))?;
            let base = positions.len() as u32;
            for t in mesh.primitives[p].indices.chunks_exact(3) {
                triangles.push([base + t[0], base + t[1], base + t[2]]);
            }
            positions.extend(posed);
        }
        out.meshes.push((mesh.name.clone(), positions, triangles));
    }
    if out.meshes.is_empty() {
        out.joints = pose
            .model_from_joint()
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect();
        out.bones = model
            .skeleton
            .parents()
            .iter()
            .enumerate()
            .filter_map(|(j, p)| p.map(|p| (p, j)))
            .collect();
    }
    Ok(out)
}

/// Runs `snapshot`: writes the OBJ and returns a one-line summary.
pub fn run(args: &SnapshotArgs, load: &LoadOptions) -> Result<String, CliError> {
    let file = args.file.as_deref();
    let fbx_source = args.source_space && file.is_some_and(asset::is_fbx_path);
    let model = match file {
        Some(path) if fbx_source => {
            let options = LoadOptions {
                source_space: true,
                ..*load
            };
            asset::load_with(path, &options)?
        }
        _ => super::load_model_with(file, load)?,
    };
    let clip = match args.clip.as_deref() {
        Some(name) => Some(model.find_clip(name).ok_or_else(|| {
            format!(
                "{}: no clip named '{name}' (clips: {})",
                model.source,
                model
                    .clips
                    .iter()
                    .map(|c| format!("'{}'", c.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?),
        None => model.default_clip(),
    };
    let time = match (args.time, args.frame) {
        (Some(t), _) => t,
        (None, Some(n)) => {
            let hz = clip
                .and_then(|c| model.clips[c].frame_rate_hz())
                .ok_or_else(|| {
                    format!(
                        "{}: --frame needs a clip with a frame rate (FBX, BVH); give --time",
                        model.source
                    )
                })?;
            n / hz
        }
        (None, None) => 0.0,
    };
    if !time.is_finite() {
        return Err(format!("time {time} is not finite").into());
    }
    let mut posed = posed_mesh(&model, clip, time as f32)?;
    let units = if args.source_space && !fbx_source && model.format != SourceFormat::Gltf {
        posed.scale((1.0 / model.source_units_m) as f32);
        "file units"
    } else if args.source_space {
        "file units and axes"
    } else {
        "metres, +Y up"
    };
    let clip_text = clip
        .map(|c| {
            let c = &model.clips[c];
            format!(
                "clip '{}' at {time} s (source time {} s)",
                c.name(),
                c.source_start_secs() + time
            )
        })
        .unwrap_or_else(|| "rest pose".to_string());
    let comment = format!(
        "stridescope snapshot of {}: {clip_text}; {units}",
        model.source
    );
    write_file(&args.obj, &posed.to_obj(&comment))?;
    let points = posed.points().len();
    Ok(format!(
        "wrote {} ({} mesh(es), {points} points): {clip_text}; {units}\n",
        args.obj.display(),
        posed.meshes.len()
    ))
}

fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError::file(path, "write", e))
}
