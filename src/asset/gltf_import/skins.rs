//! Skins: joints in the scene, inverse bind matrices (folded with the skeleton root's
//! placement where the spec asks).

use super::*;

pub(super) struct Skins {
    pub(super) skins: Vec<Skin>,
    /// Model skin index of each glTF skin (`None` for skipped skins).
    pub(super) model_index: Vec<Option<usize>>,
}

impl Importer<'_> {
    pub(super) fn skins(
        &mut self,
        h: &Hierarchy,
        skeleton: &Skeleton,
    ) -> Result<Skins, ImportError> {
        let doc = self.doc;
        // Skins used by a mesh node of the scene.
        let mut used = vec![false; doc.skins().len()];
        for &i in &h.order {
            let node = &doc.as_json().nodes[i];
            if let (Some(skin), Some(_)) = (node.skin, node.mesh) {
                used[skin.value()] = true;
            }
        }
        // Pass 1: structure of every skin (joints, hierarchy, accessor shape); pass 2: data.
        let mut kept: Vec<(gltf::Skin<'_>, Vec<usize>)> = Vec::new();
        for skin in doc.skins() {
            let s = skin.index();
            let element = format!("skin {s}");
            let joint_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
            if joint_nodes.is_empty() {
                self.warn(&element, "has no joints");
            }
            if joint_nodes.len() > u16::MAX as usize + 1 {
                return Err(self.err(
                    &element,
                    format!(
                        "has {} joints; at most {} are supported",
                        joint_nodes.len(),
                        u16::MAX as usize + 1
                    ),
                ));
            }
            // All joints must hang below one common root node.
            if let Some(&first) = joint_nodes.first() {
                let root0 = h.top_root(first);
                for (j, &node) in joint_nodes.iter().enumerate().skip(1) {
                    if h.top_root(node) != root0 {
                        return Err(self.err(
                            &element,
                            format!(
                                "joint {j} (node {node}) has no common root with joint 0 \
                                 (node {first}): they belong to separate node hierarchies"
                            ),
                        ));
                    }
                }
            }
            if let Some(sk) = skin.skeleton() {
                let k = sk.index();
                if !joint_nodes.iter().all(|&j| h.is_ancestor_or_self(k, j)) {
                    self.warn(
                        &element,
                        format!(
                            "its skeleton node {k} is not a common root of its joints; ignored"
                        ),
                    );
                }
            }
            if let Some(acc) = skin.inverse_bind_matrices() {
                if acc.count() < joint_nodes.len() {
                    return Err(self.err(
                        &element,
                        format!(
                            "has {} joints but only {} inverse bind matrices (accessor {})",
                            joint_nodes.len(),
                            acc.count(),
                            acc.index()
                        ),
                    ));
                }
                self.check_format(
                    &acc,
                    &element,
                    "inverse bind matrices",
                    Dimensions::Mat4,
                    FLOAT_ONLY,
                )?;
            }
            let missing = joint_nodes
                .iter()
                .enumerate()
                .find(|&(_, &node)| h.joint_of_node[node].is_none());
            if let Some((j, &node)) = missing {
                if used[s] {
                    return Err(self.err(
                        &element,
                        format!(
                            "joint {j} (node {node}) is not in the scene, but a mesh in the \
                             scene is skinned to it"
                        ),
                    ));
                }
                self.warn(
                    &element,
                    format!(
                        "joint {j} (node {node}) is not in the scene and no mesh in the scene \
                         uses the skin; skipped"
                    ),
                );
                continue;
            }
            let joints = joint_nodes
                .iter()
                .filter_map(|&node| h.joint_of_node[node])
                .collect();
            kept.push((skin, joints));
        }
        let mut out = Skins {
            skins: Vec::new(),
            model_index: vec![None; doc.skins().len()],
        };
        for (skin, joints) in kept {
            let s = skin.index();
            let element = format!("skin {s}");
            let inverse_bind = self.inverse_bind_matrices(&skin, &element, joints.len())?;
            let name = skin
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| element.clone());
            let skin = Skin::new(name, joints, inverse_bind, skeleton)
                .map_err(|e| self.err(&element, e.to_string()))?;
            out.model_index[s] = Some(out.skins.len());
            out.skins.push(skin);
        }
        Ok(out)
    }

    pub(super) fn inverse_bind_matrices(
        &mut self,
        skin: &gltf::Skin<'_>,
        element: &str,
        joint_count: usize,
    ) -> Result<Vec<Mat4>, ImportError> {
        let Some(acc) = skin.inverse_bind_matrices() else {
            return Ok(vec![Mat4::IDENTITY; joint_count]);
        };
        let values = self.read_f32s(
            &acc,
            element,
            "inverse bind matrices",
            Dimensions::Mat4,
            FLOAT_ONLY,
        )?;
        let mut out = Vec::with_capacity(joint_count);
        for (i, cols) in values.chunks_exact(16).take(joint_count).enumerate() {
            let m = Mat4::from_cols_slice(cols);
            if !m.is_finite() {
                return Err(self.err(
                    element,
                    format!("inverse bind matrix {i} has a value that is not finite"),
                ));
            }
            let row3 = m.row(3);
            if (row3 - Vec4::W).abs().max_element() > 1e-5 {
                return Err(self.err(
                    element,
                    format!(
                        "inverse bind matrix {i} is not an affine transform (last row is {} {} \
                         {} {}, expected 0 0 0 1)",
                        row3.x, row3.y, row3.z, row3.w
                    ),
                ));
            }
            out.push(m);
        }
        Ok(out)
    }
}
