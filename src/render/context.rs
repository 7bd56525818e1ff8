//! The GPU context: instance, adapter, device and queue, made three ways:
//!
//! - [`GpuContext::headless`]: no surface, for the CLI, tests and benchmarks;
//! - [`GpuContext::for_surface`]: an adapter that can present to a window surface;
//! - [`GpuContext::from_device`]: wraps a device someone else created (egui-wgpu owns the
//!   device in the window; pass its `RenderState`'s device, queue and adapter info).
//!
//! All three install a device-lost callback and an uncaptured-error handler that record
//! what happened instead of panicking (wgpu's default handler panics). [`GpuContext::check`]
//! turns them into a [`RenderError`]: call it once per frame; on
//! [`RenderError::DeviceLost`] rebuild the context, the [`super::Renderer`] and every
//! [`super::GpuModel`].

use std::sync::{Arc, Mutex};

use super::RenderError;

#[derive(Debug, Default)]
struct Health {
    lost: Mutex<Option<String>>,
    errors: Mutex<Vec<RenderError>>,
}

/// Device, queue and what the status bar shows about them.
#[derive(Debug)]
pub struct GpuContext {
    /// `None` when built with [`GpuContext::from_device`].
    pub instance: Option<wgpu::Instance>,
    /// `None` when built with [`GpuContext::from_device`] without an adapter.
    pub adapter: Option<wgpu::Adapter>,
    /// The device every buffer, texture and pipeline of the renderer is created on.
    pub device: wgpu::Device,
    /// The device's queue: buffer and texture writes, command submission.
    pub queue: wgpu::Queue,
    /// Adapter name, backend, driver.
    pub adapter_info: wgpu::AdapterInfo,
    health: Arc<Health>,
}

impl GpuContext {
    /// A context without a surface, for offscreen rendering. Backends can be chosen with
    /// `WGPU_BACKEND` and the adapter with `WGPU_ADAPTER_NAME` (wgpu's variables).
    pub fn headless() -> Result<Self, RenderError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        Self::with_instance(instance, None)
    }

    /// A context whose adapter can present to `surface` (created from `instance`). The
    /// caller configures the surface with [`GpuContext::device`].
    pub fn for_surface(
        instance: wgpu::Instance,
        surface: &wgpu::Surface<'_>,
    ) -> Result<Self, RenderError> {
        Self::with_instance(instance, Some(surface))
    }

    fn with_instance(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self, RenderError> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: surface,
            apply_limit_buckets: false,
        }))
        .map_err(|e| RenderError::NoAdapter(e.to_string()))?;
        let info = adapter.get_info();
        if !adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        {
            return Err(RenderError::NoAdapter(format!(
                "adapter '{}' ({:?}) has no compute shaders, which skinning needs",
                info.name, info.backend
            )));
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("stridescope device"),
            required_features: wgpu::Features::empty(),
            // Everything the adapter offers: large storage bindings mean fewer skinning chunks.
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| RenderError::RequestDevice(e.to_string()))?;
        let mut ctx = Self::from_device(device, queue, info);
        ctx.instance = Some(instance);
        ctx.adapter = Some(adapter);
        Ok(ctx)
    }

    /// Wraps a device created elsewhere (e.g. egui-wgpu's `RenderState`). Replaces the
    /// device's lost callback and uncaptured-error handler with ones that record into
    /// this context (see [`GpuContext::check`]).
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter_info: wgpu::AdapterInfo,
    ) -> Self {
        let health = Arc::new(Health::default());
        let lost = Arc::clone(&health);
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut slot) = lost.lost.lock() {
                slot.get_or_insert(format!("{reason:?}: {message}"));
            }
        });
        let errors = Arc::clone(&health);
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            if let Ok(mut list) = errors.errors.lock() {
                // Keep the first few; a broken frame repeats the same error every frame.
                if list.len() < 16 {
                    list.push(RenderError::from_wgpu(&error));
                }
            }
        }));
        Self {
            instance: None,
            adapter: None,
            device,
            queue,
            adapter_info,
            health,
        }
    }

    /// "name (backend)" for a status bar, e.g. "llvmpipe (LLVM 19.1.7, 256 bits) (Vulkan)".
    pub fn adapter_label(&self) -> String {
        format!(
            "{} ({:?})",
            self.adapter_info.name, self.adapter_info.backend
        )
    }

    /// Whether the device is still usable and no uncaptured error happened since the last
    /// call. Returns (and clears) the first recorded error; [`RenderError::DeviceLost`]
    /// stays until the context is rebuilt.
    pub fn check(&self) -> Result<(), RenderError> {
        if let Ok(slot) = self.health.lost.lock() {
            if let Some(message) = slot.as_ref() {
                return Err(RenderError::DeviceLost(message.clone()));
            }
        }
        if let Ok(mut list) = self.health.errors.lock() {
            if !list.is_empty() {
                let first = list.remove(0);
                list.clear();
                return Err(first);
            }
        }
        Ok(())
    }

    /// Whether the device-lost callback has fired.
    pub fn is_lost(&self) -> bool {
        self.health.lost.lock().map(|s| s.is_some()).unwrap_or(true)
    }

    /// Runs `f` inside validation and out-of-memory error scopes and returns the first
    /// error either captured, so a mistake surfaces as a [`RenderError`] at the call that
    /// made it instead of a panic or a later, unrelated failure.
    pub fn scoped<T>(&self, f: impl FnOnce() -> Result<T, RenderError>) -> Result<T, RenderError> {
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let result = f();
        let internal = pollster::block_on(internal.pop());
        let memory = pollster::block_on(memory.pop());
        let validation = pollster::block_on(validation.pop());
        let value = result?;
        if let Some(error) = [validation, memory, internal].into_iter().flatten().next() {
            return Err(RenderError::from_wgpu(&error));
        }
        self.check()?;
        Ok(value)
    }

    /// Blocks until the GPU has finished all submitted work.
    pub fn wait_idle(&self) -> Result<(), RenderError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Internal(format!("waiting for the GPU: {e}")))?;
        self.check()
    }
}
