// Joint world positions of a glTF, FBX or BVH file as three.js's own loaders and
// AnimationMixer play it: the independent oracle of tests/three_oracle.rs.
//
// Usage: node three_joints.mjs THREE_DIR FILE SAMPLES > out.json
//   FILE:      a glTF, FBX or BVH file, or @LIST: a text file naming one file per line
//              (prints a JSON array of their reports)
//   THREE_DIR: the folder holding node_modules/three (npm install --prefix THREE_DIR three)
//   SAMPLES:   times per clip, spread evenly from 0 to the clip's end (both included), or
//              `at:T1,T2,...` for those times (seconds on the clip's timeline) in every clip
// Prints {"clips": [{"name", "duration", "times": [...], "joints": {NAME: [[x, y, z], ...]}}],
// "rest": {NAME: [x, y, z]}} in the file's own units and axes, joint names as three.js
// sanitizes them (PropertyBinding.sanitizeNodeName).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [threeDir, file, samplesArg] = process.argv.slice(2);
const explicitTimes = (samplesArg || '').startsWith('at:')
  ? samplesArg.slice(3).split(',').map(Number)
  : null;
const samples = Math.max(2, parseInt(samplesArg || '11', 10));
const mod = (p) => import(pathToFileURL(path.join(threeDir, 'node_modules/three', p)).href);
const THREE = await mod('build/three.module.js');

// Textures need a DOM: the glTF's images are dropped before parsing (only joints matter).
function stripImages(glb) {
  const dv = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLen = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLen)));
  delete json.images; delete json.textures; delete json.samplers;
  for (const m of json.materials || []) {
    const pbr = m.pbrMetallicRoughness || {};
    delete pbr.baseColorTexture; delete pbr.metallicRoughnessTexture;
    delete m.normalTexture; delete m.occlusionTexture; delete m.emissiveTexture;
  }
  let text = new TextEncoder().encode(JSON.stringify(json));
  const pad = (4 - (text.length % 4)) % 4;
  const padded = new Uint8Array(text.length + pad).fill(0x20); padded.set(text);
  const rest = glb.subarray(20 + jsonLen);
  const out = new Uint8Array(20 + padded.length + rest.length);
  const o = new DataView(out.buffer);
  out.set(glb.subarray(0, 12)); o.setUint32(8, out.length, true);
  o.setUint32(12, padded.length, true); o.setUint32(16, 0x4e4f534a, true);
  out.set(padded, 20); out.set(rest, 20 + padded.length);
  return out.buffer;
}

// The report of one file (see the header).
async function reportFor(file) {
  const ext = path.extname(file).toLowerCase();
  let root, clips;
  if (ext === '.bvh') {
    const { BVHLoader } = await mod('examples/jsm/loaders/BVHLoader.js');
    const text = fs.readFileSync(file, 'utf8');
    const result = new BVHLoader().parse(text);
    // The clip's tracks are `NAME.position` / `NAME.quaternion`: bound by name below a group.
    root = new THREE.Group();
    root.add(result.skeleton.bones[0]);
    // three.js adds a joint's OFFSET to its position channels; stridescope (like Blender's
    // importer) reads position channels as the joint's translation, replacing the OFFSET.
    // Files such as Bandai's give every joint position channels equal to its OFFSET, so the
    // two readings differ by one OFFSET per joint: undo three.js's addition here, for the
    // components that have a position channel (three.js keys every joint's position).
    const positionAxes = new Map(); // joint name -> [x, y, z] has a position channel
    let current = null;
    const words = text.split(/\s+/);
    for (let w = 0; w < words.length; w++) {
      if (words[w] === 'MOTION') break;
      if (words[w] === 'ROOT' || words[w] === 'JOINT') current = words[++w];
      if (words[w] === 'CHANNELS' && current) {
        const n = parseInt(words[w + 1], 10);
        const axes = [false, false, false];
        for (const c of words.slice(w + 2, w + 2 + n)) {
          const k = ['Xposition', 'Yposition', 'Zposition'].indexOf(c);
          if (k >= 0) axes[k] = true;
        }
        positionAxes.set(current, axes);
      }
    }
    const byName = new Map(result.skeleton.bones.map((b) => [b.name, b]));
    for (const track of result.clip.tracks) {
      const [name, property] = track.name.split('.');
      const bone = byName.get(name);
      const axes = positionAxes.get(name);
      if (property !== 'position' || !bone || !axes) continue;
      const offset = bone.position.toArray();
      for (let k = 0; k < track.values.length; k++) {
        if (axes[k % 3]) track.values[k] -= offset[k % 3];
      }
    }
    clips = [result.clip];
  } else if (ext === '.fbx') {
    const { FBXLoader } = await mod('examples/jsm/loaders/FBXLoader.js');
    const bytes = fs.readFileSync(file);
    root = new FBXLoader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), path.dirname(file) + '/');
    clips = root.animations;
  } else {
    const { GLTFLoader } = await mod('examples/jsm/loaders/GLTFLoader.js');
    let bytes = fs.readFileSync(file);
    const gltf = await new Promise((ok, fail) =>
      new GLTFLoader().parse(stripImages(new Uint8Array(bytes)), '', ok, fail));
    root = gltf.scene;
    clips = gltf.animations;
  }

  const top = root;
  const joints = [];
  top.traverse((o) => { if (o.isBone || o.isObject3D) joints.push(o); });
  const positions = () => {
    top.updateMatrixWorld(true);
    const out = {};
    const v = new THREE.Vector3();
    for (const o of joints) {
      if (!o.name || o === top) continue;
      o.getWorldPosition(v);
      out[o.name] = out[o.name] === undefined ? [v.x, v.y, v.z] : null; // null: ambiguous
    }
    return out;
  };
  const report = { rest: positions(), clips: [] };
  for (const clip of clips) {
    const mixer = new THREE.AnimationMixer(root);
    const action = mixer.clipAction(clip);
    action.play();
    const times = [];
    const jointsOut = {};
    const clipTimes = explicitTimes || Array.from({ length: samples }, (_, i) => clip.duration * i / (samples - 1));
    for (const t of clipTimes) {
      // Just short of the end: at the end exactly a looping action wraps to time 0.
      mixer.setTime(Math.min(t, Math.max(0, clip.duration - 1e-6)));
      times.push(t);
      const p = positions();
      for (const [name, at] of Object.entries(p)) (jointsOut[name] ||= []).push(at);
    }
    mixer.stopAllAction();
    mixer.uncacheRoot(root);
    report.clips.push({ name: clip.name, duration: clip.duration, times, joints: jointsOut });
  }
  return report;
}

if (file.startsWith('@')) {
  // `@LIST`: every file named in LIST (one path per line), one Node start for all:
  // prints a JSON array of the files' reports, in order.
  const files = fs.readFileSync(file.slice(1), 'utf8').split('\n').filter((l) => l.trim());
  const all = [];
  for (const f of files) all.push(await reportFor(f));
  process.stdout.write(JSON.stringify(all));
} else {
  process.stdout.write(JSON.stringify(await reportFor(file)));
}
