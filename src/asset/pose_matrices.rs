//! The evaluated pose as the renderer and the CPU skinning oracle read it.

/// What the renderer reads of an evaluated pose: model-space joint matrices and one
/// skinning palette per skin (`model_from_joint[skin.joints[i]] * inverse_bind[i]`). The
/// renderer never evaluates animation itself; `stage::pose::Pose` implements this. It sits with the
/// model, below both the renderer and the stage, so neither needs the other.
pub trait PoseMatrices {
    /// `model_from_joint`, one per skeleton joint.
    fn model_from_joint(&self) -> &[glam::Mat4];
    /// One palette per skin of the model.
    fn skin_palettes(&self) -> &[Vec<glam::Mat4>];
    /// Morph weights per mesh (index = mesh index), one per morph target; a missing or
    /// short entry means the mesh's default weights ([`crate::Mesh::morph_weights`]).
    fn morph_weights(&self) -> &[Vec<f32>] {
        &[]
    }

    /// The matrices that move mesh `mesh_index`'s vertices: its skin's palette, or for an
    /// unskinned mesh a one-entry palette with its node's model transform (vertices then
    /// use joint 0 with weight 1).
    fn mesh_palette<'a>(
        &'a self,
        model: &crate::Model,
        mesh_index: usize,
    ) -> std::borrow::Cow<'a, [glam::Mat4]> {
        let mesh = &model.meshes[mesh_index];
        match mesh.skin {
            Some(skin) => std::borrow::Cow::Borrowed(&self.skin_palettes()[skin]),
            None => std::borrow::Cow::Owned(vec![self.model_from_joint()[mesh.joint]]),
        }
    }
}
