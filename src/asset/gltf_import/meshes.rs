//! Meshes: primitives (positions, normals or flat normals, tangents, UVs, vertex colours,
//! skinning attributes), morph targets and their default weights.

use super::*;

/// Flat normals for a primitive without NORMAL, as the glTF spec requires ("client
/// implementations MUST calculate flat normals"): each triangle's face normal on its
/// three corners. A vertex shared by several triangles is first split into one per
/// corner (every attribute, skin influence and morph delta copied); primitives whose
/// triangles share no vertex (the Fox) keep their vertices. TANGENTs are dropped with the
/// normals (glTF: tangents are ignored where normals are not given). Morph deltas are
/// split with the vertices; normal deltas (rare without normals) are added to the flat
/// normals, so a morphed face otherwise keeps its rest orientation's normal.
pub(super) fn flat_normals(p: &mut Primitive) {
    let n = p.positions.len();
    let mut uses = vec![0u8; n];
    let mut shared = false;
    for &i in &p.indices {
        let u = &mut uses[i as usize];
        shared |= *u > 0;
        *u = u.saturating_add(1);
    }
    p.tangents.clear();
    if shared {
        fn expand<T: Copy>(v: &mut Vec<T>, indices: &[u32]) {
            if !v.is_empty() {
                *v = indices.iter().map(|&i| v[i as usize]).collect();
            }
        }
        let indices = std::mem::take(&mut p.indices);
        expand(&mut p.positions, &indices);
        expand(&mut p.uvs, &indices);
        expand(&mut p.colors, &indices);
        expand(&mut p.joints, &indices);
        expand(&mut p.weights, &indices);
        for t in &mut p.morph_targets {
            expand(&mut t.positions, &indices);
            expand(&mut t.normals, &indices);
            expand(&mut t.tangents, &indices);
        }
        p.indices = (0..indices.len() as u32).collect();
    }
    let mut normals = vec![Vec3::Z; p.positions.len()];
    for tri in p.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let (pa, pb, pc) = (p.positions[a], p.positions[b], p.positions[c]);
        let face = (pb - pa).cross(pc - pa).normalize_or(Vec3::Z);
        for v in [a, b, c] {
            normals[v] = face;
        }
    }
    p.normals = normals;
}

impl Importer<'_> {
    pub(super) fn meshes(
        &mut self,
        h: &Hierarchy,
        skins: &Skins,
    ) -> Result<Vec<Mesh>, ImportError> {
        let doc = self.doc;
        let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
        let mut meshes = Vec::new();
        let mut cache: HashMap<(usize, Option<usize>), Vec<Primitive>> = HashMap::new();
        for (joint, &i) in h.order.iter().enumerate() {
            let node = &nodes[i];
            let node_el = format!("node {i}");
            let Some(mesh) = node.mesh() else {
                if node.skin().is_some() {
                    self.warn(
                        &node_el,
                        "has a skin but no mesh; the skin is ignored there",
                    );
                }
                continue;
            };
            let m = mesh.index();
            let has_joints = mesh
                .primitives()
                .any(|p| p.get(&Semantic::Joints(0)).is_some());
            let mut skin = node.skin().and_then(|s| skins.model_index[s.index()]);
            if skin.is_some() && !has_joints {
                self.warn(
                    &node_el,
                    format!("has a skin but mesh {m} has no JOINTS_0/WEIGHTS_0; drawn unskinned"),
                );
                skin = None;
            } else if node.skin().is_none() && has_joints {
                self.warn(
                    &node_el,
                    format!(
                        "mesh {m} has skinning attributes but the node has no skin; drawn \
                         unskinned"
                    ),
                );
            }
            let primitives = match cache.get(&(m, skin)) {
                Some(p) => {
                    let count: usize = p.iter().map(|p| p.positions.len()).sum();
                    self.count_vertices(&format!("mesh {m}"), count)?;
                    p.clone()
                }
                None => {
                    let skin_info = skin.map(|s| (s, skins.skins[s].joints.len()));
                    let mut prims = Vec::new();
                    for prim in mesh.primitives() {
                        let element = format!("mesh {m} primitive {}", prim.index());
                        if let Some(p) = self.primitive(&prim, &element, skin_info)? {
                            prims.push(p);
                        }
                    }
                    cache.insert((m, skin), prims.clone());
                    prims
                }
            };
            let (morph_weights, target_names) =
                self.morph_defaults(&mesh, node, &node_el, &primitives)?;
            meshes.push(Mesh {
                name: mesh
                    .name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("mesh {m}")),
                joint,
                skin,
                primitives,
                morph_weights,
                target_names,
            });
        }
        Ok(meshes)
    }

    /// The default morph weights of a mesh instance (node weights, else mesh weights,
    /// else 0) and its target names (`extras.targetNames`, else `target N`). Every
    /// primitive must have the same number of targets, and the weights one per target.
    pub(super) fn morph_defaults(
        &mut self,
        mesh: &gltf::Mesh<'_>,
        node: &gltf::Node<'_>,
        node_el: &str,
        primitives: &[Primitive],
    ) -> Result<(Vec<f32>, Vec<String>), ImportError> {
        let m = mesh.index();
        let counts: Vec<usize> = mesh.primitives().map(|p| p.morph_targets().len()).collect();
        let targets = counts.first().copied().unwrap_or(0);
        if let Some(k) = counts.iter().position(|&c| c != targets) {
            return Err(self.err(
                format!("mesh {m}"),
                format!(
                    "primitive {k} has {} morph targets but primitive 0 has {targets}; every \
                     primitive of a mesh must have the same number",
                    counts[k]
                ),
            ));
        }
        debug_assert!(primitives.iter().all(|p| p.morph_targets.len() == targets));
        let mut weights = vec![0.0f32; targets];
        for (what, element, given) in [
            ("mesh", format!("mesh {m}"), mesh.weights()),
            ("node", node_el.to_string(), node.weights()),
        ] {
            let Some(given) = given else { continue };
            if given.len() != targets {
                self.warn(
                    &element,
                    format!(
                        "{what} weights has {} entries but the mesh has {targets} morph \
                         targets; ignored",
                        given.len()
                    ),
                );
                continue;
            }
            if let Some(k) = given.iter().position(|w| !w.is_finite()) {
                return Err(self.err(&element, format!("{what} weight {k} is not finite")));
            }
            weights.copy_from_slice(given);
        }
        let mut names: Vec<String> = (0..targets).map(|k| format!("target {k}")).collect();
        if let Some(raw) = mesh.extras().as_ref() {
            let list = serde_json::from_str::<serde_json::Value>(raw.get())
                .ok()
                .and_then(|v| v.get("targetNames").cloned());
            match list.as_ref().and_then(|l| l.as_array()) {
                Some(list) if list.len() == targets => {
                    for (name, v) in names.iter_mut().zip(list) {
                        if let Some(text) = v.as_str() {
                            *name = text.to_string();
                        }
                    }
                }
                Some(list) => self.warn(
                    &format!("mesh {m}"),
                    format!(
                        "extras.targetNames has {} names for {targets} morph targets; ignored",
                        list.len()
                    ),
                ),
                None => {}
            }
        }
        Ok((weights, names))
    }

    pub(super) fn count_vertices(&mut self, element: &str, n: usize) -> Result<(), ImportError> {
        self.total_vertices += n;
        if self.total_vertices > MAX_TOTAL_VERTICES {
            return Err(self.err(
                element,
                format!("the file has more than {MAX_TOTAL_VERTICES} vertices in all; too large to import"),
            ));
        }
        Ok(())
    }

    /// Reads one primitive; `None` when it is skipped (not a triangle list).
    pub(super) fn primitive(
        &mut self,
        prim: &gltf::Primitive<'_>,
        element: &str,
        skin: Option<(usize, usize)>,
    ) -> Result<Option<Primitive>, ImportError> {
        if prim.mode() != Mode::Triangles {
            self.warn(
                element,
                format!(
                    "uses mode {:?}; only triangle lists are drawn, skipped",
                    prim.mode()
                ),
            );
            return Ok(None);
        }
        let Some(pos_acc) = prim.get(&Semantic::Positions) else {
            // Valid glTF (an extension may supply the geometry); nothing to draw here.
            self.warn(element, "has no POSITION attribute; skipped");
            return Ok(None);
        };
        let position_formats = if self.quantized {
            QUANTIZED_POSITION
        } else {
            if pos_acc.data_type() != DataType::F32 {
                return Err(self.err(
                    element,
                    format!(
                        "POSITION (accessor {}) is {}: integer vertex attributes need the \
                         KHR_mesh_quantization extension, which the file does not declare",
                        pos_acc.index(),
                        format_name(&pos_acc)
                    ),
                ));
            }
            FLOAT_ONLY
        };
        let positions = self.read_vec3s_as(&pos_acc, element, "POSITION", position_formats)?;
        if let Some(v) = positions.iter().position(|p| !p.is_finite()) {
            return Err(self.err(element, format!("POSITION of vertex {v} is not finite")));
        }
        let n = positions.len();
        self.count_vertices(element, n)?;
        let check_len = |this: &Self, role: &str, len: usize| {
            if len == n {
                Ok(())
            } else {
                Err(this.err(
                    element,
                    format!("{role} has {len} elements but POSITION has {n}"),
                ))
            }
        };

        // Indices.
        let indices = match prim.indices() {
            Some(acc) => {
                let mut idx =
                    self.read_u32s(&acc, element, "indices", Dimensions::Scalar, INDEX_FORMATS)?;
                if let Some(k) = idx.iter().position(|&i| i as usize >= n) {
                    return Err(self.err(
                        element,
                        format!(
                            "index {k} refers to vertex {}, but the primitive has only {n} \
                             vertices",
                            idx[k]
                        ),
                    ));
                }
                if idx.len() % 3 != 0 {
                    self.warn(
                        element,
                        format!(
                            "{} indices is not a multiple of 3; the last partial triangle is \
                             dropped",
                            idx.len()
                        ),
                    );
                    idx.truncate(idx.len() / 3 * 3);
                }
                idx
            }
            None => {
                if n % 3 != 0 {
                    self.warn(
                        element,
                        format!(
                            "{n} vertices without indices is not a multiple of 3; the last \
                             partial triangle is dropped"
                        ),
                    );
                }
                (0..(n / 3 * 3) as u32).collect()
            }
        };
        self.total_indices += indices.len();
        if self.total_indices > MAX_TOTAL_INDICES {
            return Err(self.err(
                element,
                format!("the file has more than {MAX_TOTAL_INDICES} indices in all; too large to import"),
            ));
        }

        // Normals (generated when absent), tangents, texture coordinates.
        let normals = match prim.get(&Semantic::Normals) {
            Some(acc) => {
                let normals =
                    self.read_vec3s_as(&acc, element, "NORMAL", self.direction_formats())?;
                check_len(self, "NORMAL", normals.len())?;
                if let Some(v) = normals.iter().position(|p| !p.is_finite()) {
                    return Err(self.err(element, format!("NORMAL of vertex {v} is not finite")));
                }
                normals
                    .into_iter()
                    .map(|v| v.normalize_or(Vec3::Z))
                    .collect()
            }
            // Flat normals come last (see `flat_normals`), once every attribute is read.
            None => Vec::new(),
        };
        let tangents = match prim.get(&Semantic::Tangents) {
            Some(acc) => {
                let t = self.read_f32s(
                    &acc,
                    element,
                    "TANGENT",
                    Dimensions::Vec4,
                    self.direction_formats(),
                )?;
                let t: Vec<Vec4> = t.chunks_exact(4).map(Vec4::from_slice).collect();
                check_len(self, "TANGENT", t.len())?;
                if t.iter().any(|v| !v.is_finite()) {
                    return Err(self.err(element, "TANGENT has values that are not finite"));
                }
                t
            }
            None => Vec::new(),
        };
        let uvs = match prim.get(&Semantic::TexCoords(0)) {
            Some(acc) => {
                let uv = self.read_f32s(
                    &acc,
                    element,
                    "TEXCOORD_0",
                    Dimensions::Vec2,
                    if self.quantized {
                        QUANTIZED_TEXCOORD
                    } else {
                        CORE_TEXCOORD
                    },
                )?;
                let mut uv: Vec<Vec2> = uv.chunks_exact(2).map(Vec2::from_slice).collect();
                let transform = prim
                    .material()
                    .index()
                    .and_then(|m| self.uv_transforms.get(m).copied().flatten());
                if let Some(t) = transform {
                    for p in &mut uv {
                        *p = t.transform_point2(*p);
                    }
                }
                check_len(self, "TEXCOORD_0", uv.len())?;
                if uv.iter().any(|v| !v.is_finite()) {
                    return Err(self.err(element, "TEXCOORD_0 has values that are not finite"));
                }
                uv
            }
            None => Vec::new(),
        };

        let colors = match prim.get(&Semantic::Colors(0)) {
            Some(acc) => {
                let rgba = acc.dimensions() == Dimensions::Vec4;
                let dims = if rgba {
                    Dimensions::Vec4
                } else {
                    Dimensions::Vec3
                };
                let raw = self.read_f32s(
                    &acc,
                    element,
                    "COLOR_0",
                    dims,
                    &[
                        (DataType::F32, false),
                        (DataType::U8, true),
                        (DataType::U16, true),
                    ],
                )?;
                let colors: Vec<Vec4> = if rgba {
                    raw.chunks_exact(4).map(Vec4::from_slice).collect()
                } else {
                    raw.chunks_exact(3)
                        .map(|c| Vec3::from_slice(c).extend(1.0))
                        .collect()
                };
                check_len(self, "COLOR_0", colors.len())?;
                if colors.iter().any(|c| !c.is_finite()) {
                    return Err(self.err(element, "COLOR_0 has values that are not finite"));
                }
                colors
            }
            None => Vec::new(),
        };

        // Skinning attributes.
        let mut joints = vec![[0u16; MAX_INFLUENCES]; n];
        let mut weights = vec![[0f32; MAX_INFLUENCES]; n];
        if skin.is_none() {
            // Unskinned: every vertex follows palette entry 0, which the pose evaluation
            // sets to the mesh node's model transform (`PoseMatrices::mesh_palette`).
            for w in &mut weights {
                w[0] = 1.0;
            }
        }
        if let Some((skin_index, joint_count)) = skin {
            for set in 0..2u32 {
                let j_acc = prim.get(&Semantic::Joints(set));
                let w_acc = prim.get(&Semantic::Weights(set));
                let (j_acc, w_acc) = match (j_acc, w_acc) {
                    (Some(j), Some(w)) => (j, w),
                    (None, None) => continue,
                    (Some(_), None) => {
                        return Err(
                            self.err(element, format!("has JOINTS_{set} but no WEIGHTS_{set}"))
                        );
                    }
                    (None, Some(_)) => {
                        return Err(
                            self.err(element, format!("has WEIGHTS_{set} but no JOINTS_{set}"))
                        );
                    }
                };
                let js = self.read_u32s(
                    &j_acc,
                    element,
                    &format!("JOINTS_{set}"),
                    Dimensions::Vec4,
                    JOINT_FORMATS,
                )?;
                let ws = self.read_f32s(
                    &w_acc,
                    element,
                    &format!("WEIGHTS_{set}"),
                    Dimensions::Vec4,
                    &[
                        (DataType::F32, false),
                        (DataType::U8, true),
                        (DataType::U16, true),
                    ],
                )?;
                check_len(self, &format!("JOINTS_{set}"), js.len() / 4)?;
                check_len(self, &format!("WEIGHTS_{set}"), ws.len() / 4)?;
                let base = set as usize * 4;
                for v in 0..n {
                    for k in 0..4 {
                        let w = ws[v * 4 + k];
                        let j = js[v * 4 + k] as usize;
                        if !w.is_finite() || w < 0.0 {
                            return Err(self.err(
                                element,
                                format!(
                                    "vertex {v}: WEIGHTS_{set} component {k} is {w}; weights \
                                     must be finite and non-negative"
                                ),
                            ));
                        }
                        if j >= joint_count {
                            if w > 0.0 {
                                return Err(self.err(
                                    element,
                                    format!(
                                        "vertex {v}: JOINTS_{set} component {k} is joint {j}, \
                                         but skin {skin_index} has only {joint_count} joints"
                                    ),
                                ));
                            }
                            continue; // zero weight: unused slot, keep joint 0
                        }
                        joints[v][base + k] = j as u16;
                        weights[v][base + k] = w;
                    }
                }
            }
            if prim.get(&Semantic::Joints(2)).is_some() {
                self.warn(
                    element,
                    "has more than 8 influences per vertex (JOINTS_2...); only the first 8 are used",
                );
            }
        }

        let morph_targets = self.morph_targets(prim, element, n)?;
        let mut primitive = Primitive {
            positions,
            normals,
            tangents,
            uvs,
            colors,
            indices,
            joints,
            weights,
            material: prim.material().index(),
            morph_targets,
        };
        if primitive.normals.is_empty() {
            flat_normals(&mut primitive);
        }
        Ok(Some(primitive))
    }

    /// The primitive's morph targets: POSITION, NORMAL and TANGENT deltas (sparse
    /// accessors included; with KHR_mesh_quantization also normalized integers), each
    /// with one value per vertex.
    pub(super) fn morph_targets(
        &mut self,
        prim: &gltf::Primitive<'_>,
        element: &str,
        n: usize,
    ) -> Result<Vec<MorphTarget>, ImportError> {
        let mut targets = Vec::new();
        for (k, target) in prim.morph_targets().enumerate() {
            let position_formats = if self.quantized {
                QUANTIZED_POSITION
            } else {
                FLOAT_ONLY
            };
            let mut out = MorphTarget::default();
            for (role, acc, formats, slot) in [
                (
                    "POSITION",
                    target.positions(),
                    position_formats,
                    &mut out.positions,
                ),
                (
                    "NORMAL",
                    target.normals(),
                    self.direction_formats(),
                    &mut out.normals,
                ),
                (
                    "TANGENT",
                    target.tangents(),
                    self.direction_formats(),
                    &mut out.tangents,
                ),
            ] {
                let Some(acc) = acc else { continue };
                let what = format!("morph target {k} {role}");
                let v = self.read_vec3s_as(&acc, element, &what, formats)?;
                if v.len() != n {
                    return Err(self.err(
                        element,
                        format!("{what} has {} elements but POSITION has {n}", v.len()),
                    ));
                }
                if let Some(i) = v.iter().position(|d| !d.is_finite()) {
                    return Err(self.err(element, format!("{what} of vertex {i} is not finite")));
                }
                *slot = v;
            }
            targets.push(out);
        }
        Ok(targets)
    }
}
