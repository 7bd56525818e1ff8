//! An ASCII FBX 7.5 scene written for the tests with the Maya features the shared files
//! do not hold, each animated so that every frame poses it differently:
//!
//! - `Face`: a box with one blend-shape channel holding three shapes at 25%, 60% and 100%
//!   (two in-betweens and the target), its weight keyed 0 -> 100 -> 30 so most frames
//!   fall between two in-betweens;
//! - `Gizmo`: a null with a Z-X-Y rotation order, a pre-rotation (Maya's joint orient),
//!   an animated post-rotation (Maya's rotate axis), animated rotation and scaling
//!   pivots and offsets, and non-uniform animated scale; a box mesh (`Box`) under it;
//! - `TubeA`/`TubeB`: one skinned tube geometry (5 rings of 8 vertices on a 3-bone
//!   chain) instanced under two nodes placed apart; the chain bends and twists.
//!
//! `left_handed` writes the same scene with a left-handed axis system (X negated), as
//! some packages export. 30 fps, 61 frames (0-60), centimetres.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const KTIME_PER_SEC: f64 = 46_186_158_000.0;
/// Frames per second of the take.
pub const FPS: f64 = 30.0;
/// The take's last frame.
pub const LAST_FRAME: u32 = 60;

/// Writes the scene to `<dir>/<file_name>` and returns the path.
pub fn write(dir: &Path, file_name: &str, left_handed: bool) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(file_name);
    std::fs::write(&path, scene_text(left_handed)).unwrap();
    path
}

/// A keyed curve: (frame, value) pairs, linear between keys.
type Keys = Vec<(u32, f64)>;

struct Writer {
    objects: String,
    connections: String,
    id: u64,
    layer: u64,
}

impl Writer {
    fn next(&mut self) -> u64 {
        self.id += 1;
        self.id
    }

    fn connect(&mut self, child: u64, parent: u64) {
        let _ = writeln!(self.connections, "\tC: \"OO\",{child},{parent}");
    }

    fn connect_property(&mut self, child: u64, parent: u64, property: &str) {
        let _ = writeln!(
            self.connections,
            "\tC: \"OP\",{child},{parent},\"{property}\""
        );
    }

    /// A model node with `props` (already formatted `P:` lines) under `parent` (0: root).
    fn model(&mut self, name: &str, kind: &str, parent: u64, props: &[String]) -> u64 {
        let id = self.next();
        let _ = writeln!(
            self.objects,
            "\tModel: {id}, \"Model::{name}\", \"{kind}\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{"
        );
        for p in props {
            let _ = writeln!(self.objects, "\t\t\t{p}");
        }
        self.objects.push_str("\t\t}\n\t}\n");
        self.connect(id, parent);
        id
    }

    /// One animation curve (linear keys).
    fn curve(&mut self, keys: &Keys) -> u64 {
        let id = self.next();
        let n = keys.len();
        let times: Vec<String> = keys
            .iter()
            .map(|(f, _)| ((f64::from(*f) / FPS) * KTIME_PER_SEC).round().to_string())
            .collect();
        let values: Vec<String> = keys.iter().map(|(_, v)| v.to_string()).collect();
        let _ = writeln!(
            self.objects,
            "\tAnimationCurve: {id}, \"AnimCurve::\", \"\" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009\n\t\tKeyTime: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tKeyValueFloat: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tKeyAttrFlags: *1 {{\n\t\t\ta: 4\n\t\t}}\n\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,218434821,0\n\t\t}}\n\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: {n}\n\t\t}}\n\t}}",
            times.join(","),
            values.join(",")
        );
        id
    }

    /// Animates a vector property of `object` (X, Y, Z keyed separately).
    fn animate_vector(&mut self, object: u64, property: &str, axes: [Keys; 3]) {
        let node = self.next();
        let _ = writeln!(
            self.objects,
            "\tAnimationCurveNode: {node}, \"AnimCurveNode::{property}\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",{}\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",{}\n\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",{}\n\t\t}}\n\t}}",
            axes[0][0].1, axes[1][0].1, axes[2][0].1
        );
        self.connect(node, self.layer);
        self.connect_property(node, object, property);
        for (axis, keys) in ["X", "Y", "Z"].iter().zip(axes.iter()) {
            let c = self.curve(keys);
            self.connect_property(c, node, &format!("d|{axis}"));
        }
    }

    /// Animates a number property of `object`.
    fn animate_number(&mut self, object: u64, property: &str, keys: Keys) {
        let node = self.next();
        let _ = writeln!(
            self.objects,
            "\tAnimationCurveNode: {node}, \"AnimCurveNode::{property}\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"d|{property}\", \"Number\", \"\", \"A\",{}\n\t\t}}\n\t}}",
            keys[0].1
        );
        self.connect(node, self.layer);
        self.connect_property(node, object, property);
        let c = self.curve(&keys);
        self.connect_property(c, node, &format!("d|{property}"));
    }

    /// A mesh geometry of quads.
    fn geometry(&mut self, name: &str, vertices: &[[f64; 3]], quads: &[[i32; 4]]) -> u64 {
        let id = self.next();
        let v: Vec<String> = vertices
            .iter()
            .flat_map(|p| p.iter().map(|c| c.to_string()))
            .collect();
        let idx: Vec<String> = quads
            .iter()
            .flat_map(|q| [q[0], q[1], q[2], -q[3] - 1])
            .map(|i| i.to_string())
            .collect();
        let _ = writeln!(
            self.objects,
            "\tGeometry: {id}, \"Geometry::{name}\", \"Mesh\" {{\n\t\tVertices: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t\tPolygonVertexIndex: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t\tGeometryVersion: 124\n\t}}",
            v.len(),
            v.join(","),
            idx.len(),
            idx.join(",")
        );
        id
    }
}

fn p_vector(name: &str, v: [f64; 3]) -> String {
    format!(
        "P: \"{name}\", \"Vector3D\", \"Vector\", \"\",{},{},{}",
        v[0], v[1], v[2]
    )
}

fn p_lcl(name: &str, v: [f64; 3]) -> String {
    format!(
        "P: \"{name}\", \"{name}\", \"\", \"A\",{},{},{}",
        v[0], v[1], v[2]
    )
}

fn p_int(name: &str, kind: &str, v: i32) -> String {
    format!("P: \"{name}\", \"{kind}\", \"\", \"\",{v}")
}

/// An axis-aligned box of half-size `h` centred at `c`: 8 vertices, 6 quads.
fn box_mesh(c: [f64; 3], h: [f64; 3]) -> (Vec<[f64; 3]>, Vec<[i32; 4]>) {
    let mut v = Vec::new();
    for k in 0..8 {
        let s = |bit: i32| if k & bit != 0 { 1.0 } else { -1.0 };
        v.push([c[0] + s(1) * h[0], c[1] + s(2) * h[1], c[2] + s(4) * h[2]]);
    }
    let q = vec![
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    (v, q)
}

fn scene_text(left_handed: bool) -> String {
    let stop = ((f64::from(LAST_FRAME) / FPS) * KTIME_PER_SEC).round() as i64;
    let mut s = String::new();
    s.push_str("; FBX 7.5.0 project file\n");
    s.push_str("FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7500\n");
    s.push_str(
        "\tCreator: \"FBX SDK/FBX Plugins version 2020.0 (stridescope test, Maya features)\"\n}\n",
    );
    s.push_str("GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n");
    for (k, v) in [
        ("UpAxis", 1),
        ("UpAxisSign", 1),
        ("FrontAxis", 2),
        ("FrontAxisSign", 1),
        ("CoordAxis", 0),
        ("CoordAxisSign", if left_handed { -1 } else { 1 }),
    ] {
        let _ = writeln!(s, "\t\tP: \"{k}\", \"int\", \"Integer\", \"\",{v}");
    }
    s.push_str("\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n");
    s.push_str("\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n");
    let _ = writeln!(s, "\t\tP: \"TimeSpanStart\", \"KTime\", \"Time\", \"\",0");
    let _ = writeln!(
        s,
        "\t\tP: \"TimeSpanStop\", \"KTime\", \"Time\", \"\",{stop}"
    );
    s.push_str("\t}\n}\n");

    let mut w = Writer {
        objects: String::new(),
        connections: String::new(),
        id: 5000,
        layer: 0,
    };
    let stack = w.next();
    let layer = w.next();
    w.layer = layer;
    let _ = writeln!(
        w.objects,
        "\tAnimationStack: {stack}, \"AnimStack::features\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",{stop}\n\t\t\tP: \"ReferenceStop\", \"KTime\", \"Time\", \"\",{stop}\n\t\t}}\n\t}}"
    );
    let _ = writeln!(
        w.objects,
        "\tAnimationLayer: {layer}, \"AnimLayer::BaseLayer\", \"\" {{\n\t}}"
    );
    w.connect(layer, stack);

    // --- Face: blend shape with two in-betweens.
    let face = w.model(
        "Face",
        "Mesh",
        0,
        &[p_lcl("Lcl Translation", [-60.0, 20.0, 0.0])],
    );
    let (fv, fq) = box_mesh([0.0, 0.0, 0.0], [10.0, 10.0, 10.0]);
    let face_geometry = w.geometry("Face", &fv, &fq);
    w.connect(face_geometry, face);
    let blend = w.next();
    let _ = writeln!(
        w.objects,
        "\tDeformer: {blend}, \"Deformer::Face_blend\", \"BlendShape\" {{\n\t\tVersion: 100\n\t}}"
    );
    w.connect(blend, face_geometry);
    let channel = w.next();
    let _ = writeln!(
        w.objects,
        "\tDeformer: {channel}, \"SubDeformer::Smile\", \"BlendShapeChannel\" {{\n\t\tVersion: 100\n\t\tProperties70:  {{\n\t\t\tP: \"DeformPercent\", \"Number\", \"\", \"A\",0\n\t\t}}\n\t\tDeformPercent: 0\n\t\tFullWeights: *3 {{\n\t\t\ta: 25,60,100\n\t\t}}\n\t}}"
    );
    w.connect(channel, blend);
    // Each shape moves the top four vertices (bit 2 set) its own way, so the in-between
    // path is a curve, not a line from rest to the target.
    let top: Vec<i32> = (0..8).filter(|k| k & 2 != 0).collect();
    for (name, offset) in [
        ("Smile_25", [8.0, 0.0, 0.0]),
        ("Smile_60", [0.0, 12.0, 4.0]),
        ("Smile_100", [-6.0, 3.0, 15.0]),
    ] {
        let shape = w.next();
        let idx: Vec<String> = top.iter().map(|i| i.to_string()).collect();
        let off: Vec<String> = top
            .iter()
            .flat_map(|_| offset.iter().map(|c| c.to_string()))
            .collect();
        let _ = writeln!(
            w.objects,
            "\tGeometry: {shape}, \"Geometry::{name}\", \"Shape\" {{\n\t\tVersion: 100\n\t\tIndexes: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t\tVertices: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t}}",
            idx.len(),
            idx.join(","),
            off.len(),
            off.join(",")
        );
        w.connect(shape, channel);
    }
    w.animate_number(
        channel,
        "DeformPercent",
        vec![(0, 0.0), (40, 100.0), (LAST_FRAME, 30.0)],
    );

    // --- Gizmo: pivots, offsets, pre- and post-rotation, rotation order.
    let gizmo = w.model(
        "Gizmo",
        "Null",
        0,
        &[
            p_int("RotationActive", "bool", 1),
            p_int("RotationOrder", "enum", 4),
            p_vector("PreRotation", [10.0, 20.0, 30.0]),
            p_vector("PostRotation", [5.0, 0.0, -15.0]),
            p_vector("RotationPivot", [0.0, 10.0, 0.0]),
            p_vector("ScalingPivot", [5.0, 5.0, 0.0]),
            p_vector("RotationOffset", [0.0, 0.0, 0.0]),
            p_vector("ScalingOffset", [2.0, 0.0, 1.0]),
            p_lcl("Lcl Translation", [0.0, 0.0, 60.0]),
            p_lcl("Lcl Rotation", [0.0, 0.0, 0.0]),
            p_lcl("Lcl Scaling", [1.0, 1.0, 1.0]),
        ],
    );
    w.animate_vector(
        gizmo,
        "Lcl Rotation",
        [
            vec![(0, 0.0), (30, 70.0), (LAST_FRAME, -20.0)],
            vec![(0, 0.0), (20, 45.0), (LAST_FRAME, 120.0)],
            vec![(0, 10.0), (LAST_FRAME, -35.0)],
        ],
    );
    w.animate_vector(
        gizmo,
        "Lcl Scaling",
        [
            vec![(0, 1.0), (LAST_FRAME, 1.6)],
            vec![(0, 1.0), (30, 0.7), (LAST_FRAME, 1.0)],
            vec![(0, 1.0)],
        ],
    );
    w.animate_vector(
        gizmo,
        "RotationPivot",
        [
            vec![(0, 0.0), (LAST_FRAME, 10.0)],
            vec![(0, 10.0), (25, 0.0), (LAST_FRAME, 5.0)],
            vec![(0, 0.0), (LAST_FRAME, 5.0)],
        ],
    );
    w.animate_vector(
        gizmo,
        "RotationOffset",
        [
            vec![(0, 0.0), (LAST_FRAME, -8.0)],
            vec![(0, 0.0)],
            vec![(0, 0.0), (35, 6.0), (LAST_FRAME, 0.0)],
        ],
    );
    w.animate_vector(
        gizmo,
        "ScalingPivot",
        [
            vec![(0, 5.0), (LAST_FRAME, -5.0)],
            vec![(0, 5.0)],
            vec![(0, 0.0), (LAST_FRAME, 4.0)],
        ],
    );
    w.animate_vector(
        gizmo,
        "PostRotation",
        [
            vec![(0, 5.0), (LAST_FRAME, 40.0)],
            vec![(0, 0.0), (30, -25.0), (LAST_FRAME, 0.0)],
            vec![(0, -15.0)],
        ],
    );
    let boxed = w.model(
        "Box",
        "Mesh",
        gizmo,
        &[p_lcl("Lcl Translation", [0.0, 8.0, 0.0])],
    );
    let (bv, bq) = box_mesh([3.0, 0.0, 0.0], [6.0, 4.0, 2.0]);
    let box_geometry = w.geometry("Box", &bv, &bq);
    w.connect(box_geometry, boxed);

    // --- Tube: a skinned geometry instanced under two nodes.
    let ring = 8;
    let rings = 5;
    let mut tv = Vec::new();
    for r in 0..rings {
        let y = 10.0 * f64::from(r);
        for k in 0..ring {
            let a = std::f64::consts::TAU * f64::from(k) / f64::from(ring);
            tv.push([4.0 * a.cos(), y, 4.0 * a.sin()]);
        }
    }
    let mut tq = Vec::new();
    for r in 0..rings - 1 {
        for k in 0..ring {
            let (a, b) = (r * ring + k, r * ring + (k + 1) % ring);
            tq.push([a, b, b + ring, a + ring]);
        }
    }
    let tube_geometry = w.geometry("Tube", &tv, &tq);
    let tube_a = w.model(
        "TubeA",
        "Mesh",
        0,
        &[p_lcl("Lcl Translation", [0.0, 0.0, 0.0])],
    );
    let tube_b = w.model(
        "TubeB",
        "Mesh",
        0,
        &[
            p_lcl("Lcl Translation", [50.0, 0.0, -20.0]),
            p_lcl("Lcl Rotation", [0.0, 30.0, 0.0]),
        ],
    );
    w.connect(tube_geometry, tube_a);
    w.connect(tube_geometry, tube_b);
    // Bones at heights 0, 20, 40 (cm).
    let mut bones = Vec::new();
    let mut parent = 0;
    for (i, name) in ["Bone1", "Bone2", "Bone3"].iter().enumerate() {
        let attr = w.next();
        let _ = writeln!(
            w.objects,
            "\tNodeAttribute: {attr}, \"NodeAttribute::\", \"LimbNode\" {{\n\t\tTypeFlags: \"Skeleton\"\n\t}}"
        );
        let y = if i == 0 { 0.0 } else { 20.0 };
        let id = w.model(
            name,
            "LimbNode",
            parent,
            &[
                p_int("RotationActive", "bool", 1),
                p_vector("PreRotation", [0.0, 0.0, if i == 1 { 10.0 } else { 0.0 }]),
                p_lcl("Lcl Translation", [0.0, y, 0.0]),
            ],
        );
        w.connect(attr, id);
        bones.push(id);
        parent = id;
    }
    w.animate_vector(
        bones[0],
        "Lcl Rotation",
        [
            vec![(0, 0.0)],
            vec![(0, 0.0), (LAST_FRAME, 90.0)],
            vec![(0, 0.0)],
        ],
    );
    w.animate_vector(
        bones[1],
        "Lcl Rotation",
        [
            vec![(0, 0.0), (30, 20.0), (LAST_FRAME, 0.0)],
            vec![(0, 0.0)],
            vec![(0, 0.0), (30, 60.0), (LAST_FRAME, -30.0)],
        ],
    );
    w.animate_vector(
        bones[2],
        "Lcl Rotation",
        [
            vec![(0, 0.0), (LAST_FRAME, -45.0)],
            vec![(0, 0.0)],
            vec![(0, 0.0)],
        ],
    );
    let skin = w.next();
    let _ = writeln!(
        w.objects,
        "\tDeformer: {skin}, \"Deformer::Tube_skin\", \"Skin\" {{\n\t\tVersion: 101\n\t\tLink_DeformAcuracy: 50\n\t}}"
    );
    w.connect(skin, tube_geometry);
    // Bind pose: Bone2's pre-rotation bends it 10 degrees; the bind matrices say where
    // each bone was when bound (the rest pose above, pre-rotation included).
    let bind_world: Vec<glam::DMat4> = {
        let local = |i: usize| {
            let y = if i == 0 { 0.0 } else { 20.0 };
            let pre = if i == 1 { 10f64.to_radians() } else { 0.0 };
            glam::DMat4::from_translation(glam::DVec3::new(0.0, y, 0.0))
                * glam::DMat4::from_rotation_z(pre)
        };
        let b0 = local(0);
        let b1 = b0 * local(1);
        let b2 = b1 * local(2);
        vec![b0, b1, b2]
    };
    for (i, bone) in bones.iter().enumerate() {
        // Weights: a tent around each bone's height along the tube.
        let mut idx = Vec::new();
        let mut wts = Vec::new();
        for (v, p) in tv.iter().enumerate() {
            let t = p[1] / 20.0; // 0..2
            let wgt = (1.0 - (t - i as f64).abs()).max(0.0);
            if wgt > 0.0 {
                idx.push(v.to_string());
                wts.push(wgt.to_string());
            }
        }
        let cluster = w.next();
        // FBX matrices are column-major, as glam's `to_cols_array`.
        let link = bind_world[i];
        let link_text = link
            .to_cols_array()
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let transform_text = link
            .inverse()
            .to_cols_array()
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let _ = writeln!(
            w.objects,
            "\tDeformer: {cluster}, \"SubDeformer::Cluster{i}\", \"Cluster\" {{\n\t\tVersion: 100\n\t\tUserData: \"\", \"\"\n\t\tIndexes: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tWeights: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tTransform: *16 {{\n\t\t\ta: {transform_text}\n\t\t}}\n\t\tTransformLink: *16 {{\n\t\t\ta: {link_text}\n\t\t}}\n\t}}",
            idx.join(","),
            wts.join(","),
            n = idx.len(),
        );
        w.connect(cluster, skin);
        w.connect(*bone, cluster);
    }

    s.push_str("Objects:  {\n");
    s.push_str(&w.objects);
    s.push_str("}\nConnections:  {\n");
    s.push_str(&w.connections);
    s.push_str("}\n");
    s
}
