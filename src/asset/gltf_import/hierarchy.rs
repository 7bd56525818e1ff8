//! The node hierarchy (cycles, two parents, roots of the shown scene) and the skeleton
//! in parent-before-child order with its rest pose.

use super::*;

/// The node graph of the whole file and the scene's nodes in skeleton order.
pub(super) struct Hierarchy {
    /// Parent of every glTF node (acyclic, at most one parent each).
    pub(super) parent: Vec<Option<usize>>,
    /// glTF node index of each skeleton joint (parent before child).
    pub(super) order: Vec<usize>,
    /// Skeleton joint of each glTF node, `None` outside the scene.
    pub(super) joint_of_node: Vec<Option<usize>>,
}

impl Hierarchy {
    pub(super) fn top_root(&self, mut node: usize) -> usize {
        while let Some(p) = self.parent[node] {
            node = p;
        }
        node
    }

    pub(super) fn is_ancestor_or_self(&self, ancestor: usize, node: usize) -> bool {
        let mut cur = Some(node);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.parent[c];
        }
        false
    }
}

impl Importer<'_> {
    pub(super) fn hierarchy(&mut self) -> Result<Hierarchy, ImportError> {
        let doc = self.doc;
        let n = doc.nodes().len();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for node in doc.nodes() {
            let p = node.index();
            for child in node.children() {
                let c = child.index();
                match parent[c] {
                    Some(q) if q == p => {
                        return Err(self.err(
                            format!("node {c}"),
                            format!("is listed twice among the children of node {p}"),
                        ));
                    }
                    Some(q) => {
                        return Err(self.err(
                            format!("node {c}"),
                            format!("has two parents (nodes {q} and {p})"),
                        ));
                    }
                    None => parent[c] = Some(p),
                }
            }
        }
        // Every node has at most one parent now; a cycle is a loop of parent links.
        let mut state = vec![0u8; n]; // 0 unvisited, 1 on the current walk, 2 done
        for start in 0..n {
            let mut walk = Vec::new();
            let mut cur = Some(start);
            while let Some(c) = cur {
                match state[c] {
                    0 => {
                        state[c] = 1;
                        walk.push(c);
                        cur = parent[c];
                    }
                    1 => {
                        let from = walk.iter().position(|&x| x == c).unwrap_or(0);
                        let mut cycle: Vec<usize> = walk[from..].to_vec();
                        cycle.reverse(); // parent -> child order
                        let first = cycle.iter().copied().min().unwrap_or(c);
                        let rot = cycle.iter().position(|&x| x == first).unwrap_or(0);
                        cycle.rotate_left(rot);
                        let mut text: Vec<String> = cycle.iter().map(usize::to_string).collect();
                        text.push(first.to_string());
                        return Err(self.err(
                            format!("node {first}"),
                            format!(
                                "is part of a cycle in the node hierarchy (parent -> child: {})",
                                text.join(" -> ")
                            ),
                        ));
                    }
                    _ => break,
                }
            }
            for w in walk {
                state[w] = 2;
            }
        }

        // Roots: the requested scene, else the default one, else scene 0 (glTF: without
        // a default scene the choice is the application's; stacking every scene would
        // draw alternatives on top of each other), else every parentless node.
        let mut roots: Vec<usize> = Vec::new();
        let mut root_scene: Vec<usize> = Vec::new();
        let scene_count = doc.scenes().len();
        let chosen = match self.requested_scene {
            Some(s) if s >= scene_count => {
                return Err(self.err(
                    "scenes",
                    format!("scene {s} was asked for, but the file has {scene_count} scene(s)"),
                ));
            }
            Some(s) => Some(s),
            None => match doc.default_scene() {
                Some(scene) => Some(scene.index()),
                None if scene_count > 0 => {
                    if scene_count > 1 {
                        self.warn(
                            "scenes",
                            format!(
                                "no default scene: scene 0 of {scene_count} is shown (pick \
                                 another under Clips > Scene)"
                            ),
                        );
                    }
                    Some(0)
                }
                None => None,
            },
        };
        self.shown_scene = chosen;
        match chosen.and_then(|s| doc.scenes().nth(s)) {
            Some(scene) => {
                for node in scene.nodes() {
                    roots.push(node.index());
                    root_scene.push(scene.index());
                }
            }
            None => roots = (0..n).filter(|&i| parent[i].is_none()).collect(),
        }
        for (k, &r) in roots.iter().enumerate() {
            if let Some(p) = parent[r] {
                let scene = root_scene.get(k).copied().unwrap_or(0);
                return Err(self.err(
                    format!("scene {scene}"),
                    format!("lists node {r} as a root node, but it is a child of node {p}"),
                ));
            }
        }

        // Depth-first, parent before child, children in file order.
        let mut order = Vec::new();
        let mut joint_of_node: Vec<Option<usize>> = vec![None; n];
        let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
        for &r in &roots {
            if joint_of_node[r].is_some() {
                continue; // listed twice
            }
            let mut stack = vec![r];
            while let Some(i) = stack.pop() {
                if joint_of_node[i].is_some() {
                    continue;
                }
                joint_of_node[i] = Some(order.len());
                order.push(i);
                let children: Vec<usize> = nodes[i].children().map(|c| c.index()).collect();
                stack.extend(children.into_iter().rev());
            }
        }
        Ok(Hierarchy {
            parent,
            order,
            joint_of_node,
        })
    }

    pub(super) fn skeleton(&mut self, h: &Hierarchy) -> Result<Skeleton, ImportError> {
        let nodes: Vec<gltf::Node<'_>> = self.doc.nodes().collect();
        let mut names = Vec::with_capacity(h.order.len());
        let mut parents = Vec::with_capacity(h.order.len());
        let mut rest = Vec::with_capacity(h.order.len());
        for &i in &h.order {
            let node = &nodes[i];
            names.push(
                node.name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("node {i}")),
            );
            parents.push(h.parent[i].and_then(|p| h.joint_of_node[p]));
            rest.push(self.rest_pose(node)?);
        }
        Skeleton::new(names, parents, rest).map_err(|e| self.err("nodes", e.to_string()))
    }

    pub(super) fn rest_pose(&mut self, node: &gltf::Node<'_>) -> Result<Transform, ImportError> {
        let element = format!("node {}", node.index());
        let json_node = &self.doc.as_json().nodes[node.index()];
        match node.transform() {
            gltf::scene::Transform::Matrix { matrix } => {
                if json_node.translation.is_some()
                    || json_node.rotation.is_some()
                    || json_node.scale.is_some()
                {
                    self.warn(
                        &element,
                        "has both a matrix and translation/rotation/scale; the matrix is used",
                    );
                }
                let m = Mat4::from_cols_array_2d(&matrix);
                if !m.is_finite() {
                    return Err(self.err(&element, "matrix has a value that is not finite"));
                }
                let row3 = m.row(3);
                if (row3 - Vec4::W).abs().max_element() > 1e-5 {
                    return Err(self.err(
                        &element,
                        format!(
                            "matrix is not an affine transform (last row is {} {} {} {}, \
                             expected 0 0 0 1)",
                            row3.x, row3.y, row3.z, row3.w
                        ),
                    ));
                }
                let det = m.determinant();
                if det.abs() < 1e-12 {
                    return Err(self.err(
                        &element,
                        "matrix is singular (a zero scale), so it cannot be decomposed into \
                         translation/rotation/scale",
                    ));
                }
                let t = Transform::from_mat4(&m);
                let back = t.to_mat4();
                let scale = m
                    .abs()
                    .to_cols_array()
                    .iter()
                    .fold(1.0f32, |a, &b| a.max(b));
                let diff = (back - m)
                    .abs()
                    .to_cols_array()
                    .iter()
                    .fold(0.0f32, |a, &b| a.max(b));
                if !t.is_finite() {
                    return Err(self.err(&element, "matrix cannot be decomposed into TRS"));
                }
                if diff > 1e-3 * scale {
                    self.warn(
                        &element,
                        "matrix has shear, which a joint transform cannot represent; \
                         approximated by translation/rotation/scale",
                    );
                }
                Ok(t)
            }
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => {
                let translation = Vec3::from(translation);
                let scale = Vec3::from(scale);
                if !translation.is_finite() {
                    return Err(self.err(&element, "translation is not finite"));
                }
                if !scale.is_finite() {
                    return Err(self.err(&element, "scale is not finite"));
                }
                let q = Quat::from_array(rotation);
                if !q.is_finite() {
                    return Err(self.err(&element, "rotation is not finite"));
                }
                let len = q.length();
                if len == 0.0 {
                    return Err(self.err(&element, "rotation is a zero quaternion"));
                }
                if (len - 1.0).abs() > QUAT_NORM_TOLERANCE {
                    self.warn(
                        &element,
                        format!("rotation is not unit length (norm {len}); normalised"),
                    );
                }
                Ok(Transform {
                    translation,
                    rotation: q / len,
                    scale,
                })
            }
        }
    }
}
