//! Pose blending jobs: weighted N-way blending with optional per-joint weights, joint masks,
//! additive layers and blend spaces (SPEC section 4). All of them work on local (parent
//! space) poses; the hierarchy is accumulated once afterwards by `LocalToModelJob`.

pub mod additive;
pub mod blending;
pub mod mask;
pub mod soa;
pub mod space;
