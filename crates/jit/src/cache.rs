//! Machine code kept between runs.
//!
//! Cranelift's compile is most of a small program's fixed cost (2-4 ms of
//! a 10 ms run), and a program is often run again unchanged. So the
//! machine code of each function can be kept in a [`CodeStore`] the
//! caller provides (the engine itself does no file IO), under the whole
//! of what decides it: the target and its flags, and the function's
//! Cranelift IR as the bytes its `Hash` implementations write (the form
//! Cranelift's own incremental cache keys on). A record is used only when
//! that whole key is equal, so a hash collision, a truncated or foreign
//! file can only cost a compile, never give wrong code.
//!
//! Invariant: kept code is what compiling the same IR for the same
//! target gives. The IR names the functions it calls by their ids in the
//! module; only the helpers `new_module` declares first are kept as call
//! targets, and the key lists their names in id order, so an id means the
//! same function wherever a record is read. A relocation to anything else
//! makes the function's code not kept. (An address the IR holds as a
//! constant is part of the key: it costs reuse, never meaning.)

use crate::MachineCode;
use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::isa::TargetIsa;
use cranelift_module::{ModuleReloc, ModuleRelocTarget};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where machine code is kept between runs: a map from names (hex digits)
/// to records, each written whole or not at all. The engine checks what
/// it reads, so a store may lose, truncate or mix up records.
pub trait CodeStore: Send + Sync {
    /// The record kept under `name`, if there is one.
    fn load(&self, name: &str) -> Option<Vec<u8>>;
    /// Keeps `record` under `name`; failing quietly is fine.
    fn save(&self, name: &str, record: &[u8]);
}

/// A [`CodeStore`] in memory: code kept for the life of the process (a
/// REPL session, a test run).
#[derive(Default)]
pub struct MemoryStore {
    records: std::sync::Mutex<std::collections::HashMap<String, Vec<u8>>>,
}

impl CodeStore for MemoryStore {
    fn load(&self, name: &str) -> Option<Vec<u8>> {
        self.records.lock().ok()?.get(name).cloned()
    }
    fn save(&self, name: &str, record: &[u8]) {
        if let Ok(mut records) = self.records.lock() {
            records.insert(name.to_string(), record.to_vec());
        }
    }
}

/// The engine's side of a [`CodeStore`]: the target's part of every key
/// and a count of the functions it gave.
pub(crate) struct CodeCache {
    store: Arc<dyn CodeStore>,
    /// The target and its flags, the first lines of every key.
    target: String,
    /// How many helpers the module declares first (their ids are the
    /// only call targets a kept function may name).
    helpers: u32,
    hits: AtomicU64,
}

/// The first bytes of a record, with the format's version.
const MAGIC: &[u8; 8] = b"TSRCODE2";

impl CodeCache {
    /// A cache for code made for `isa` in a module whose first functions
    /// are the helpers named `helpers`, in id order.
    pub(crate) fn new(
        store: Arc<dyn CodeStore>,
        isa: &dyn TargetIsa,
        helpers: &[String],
    ) -> CodeCache {
        let mut target = format!(
            "tessera {}\n{}\n{}\n",
            env!("CARGO_PKG_VERSION"),
            isa.triple(),
            isa.flags()
        );
        for flag in isa.isa_flags() {
            target.push_str(&format!("{flag}\n"));
        }
        target.push_str(&format!("helpers {}\n", helpers.join(" ")));
        CodeCache {
            store,
            target,
            helpers: u32::try_from(helpers.len()).unwrap_or(0),
            hits: AtomicU64::new(0),
        }
    }

    /// Functions whose code came from the store so far.
    pub(crate) fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// The key of the function in `func`: everything its machine code
    /// follows from. That is the target, the function's stencil (its
    /// signature, instructions, layout, constants, stack slots: what
    /// Cranelift's own incremental cache keys on) and the names its
    /// external references stand for, as the bytes their `Hash`
    /// implementations write. Those leave out only what is a cache of the
    /// rest (free lists, de-duplication maps, sequence numbers). Writing
    /// them is a copy of the IR's fields; printing the IR as text took
    /// 0.2-0.4 ms per kernel, a tenth of a small program's run.
    pub(crate) fn key(&self, func: &cranelift_codegen::ir::Function) -> Vec<u8> {
        key_of(&self.target, func)
    }

    /// The code kept under `key`, its relocations naming `id`.
    pub(crate) fn load(&self, key: &[u8], id: cranelift_module::FuncId) -> Option<MachineCode> {
        let record = self.store.load(&name_of(key))?;
        let code = decode(&record, key, id, self.helpers)?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(code)
    }

    /// Keeps `code`, made from `key`, unless a relocation names something
    /// another module may not have at the same id.
    pub(crate) fn save(&self, key: &[u8], code: &MachineCode) {
        if let Some(record) = encode(key, code, self.helpers) {
            self.store.save(&name_of(key), &record);
        }
    }
}

/// [`CodeCache::key`] for the target described by `target`.
fn key_of(target: &str, func: &cranelift_codegen::ir::Function) -> Vec<u8> {
    let mut key = KeyBytes(Vec::with_capacity(target.len() + 16 * 1024));
    key.0.extend_from_slice(target.as_bytes());
    func.stencil.hash(&mut key);
    func.params.user_named_funcs().hash(&mut key);
    key.0
}

/// A record's name: two 64-bit hashes of its key, in hex. (Only a short
/// name; the record holds the whole key, which decides.)
fn name_of(key: &[u8]) -> String {
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        salt.hash(&mut h);
        key.hash(&mut h);
        h.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

/// The relocation kinds a kept function may have, by number.
const KINDS: [Reloc; 6] = [
    Reloc::Abs4,
    Reloc::Abs8,
    Reloc::X86PCRel4,
    Reloc::X86CallPCRel4,
    Reloc::X86CallPLTRel4,
    Reloc::X86GOTPCRel4,
];

/// What a relocation points at, as a record keeps it.
enum Target {
    /// A helper, by its id in the module.
    Helper(u32),
    /// An offset in the function itself.
    Own(u32),
}

fn encode(key: &[u8], code: &MachineCode, helpers: u32) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(key.len() + code.bytes.len() + 64);
    out.extend_from_slice(MAGIC);
    put_bytes(&mut out, key);
    out.extend_from_slice(&code.alignment.to_le_bytes());
    put_bytes(&mut out, &code.bytes);
    out.extend_from_slice(&u32::try_from(code.relocs.len()).ok()?.to_le_bytes());
    for r in &code.relocs {
        let kind = KINDS.iter().position(|k| *k == r.kind)?;
        let target = match r.name {
            ModuleRelocTarget::User {
                namespace: 0,
                index,
            } if index < helpers => Target::Helper(index),
            ModuleRelocTarget::FunctionOffset(_, offset) => Target::Own(offset),
            _ => return None,
        };
        out.extend_from_slice(&r.offset.to_le_bytes());
        out.push(u8::try_from(kind).ok()?);
        let (tag, value) = match target {
            Target::Helper(i) => (0u8, i),
            Target::Own(o) => (1u8, o),
        };
        out.push(tag);
        out.extend_from_slice(&value.to_le_bytes());
        out.extend_from_slice(&r.addend.to_le_bytes());
    }
    Some(out)
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Reads a record back, or `None` when it is not whole, not of this
/// format, or made from another key.
fn decode(
    record: &[u8],
    key: &[u8],
    id: cranelift_module::FuncId,
    helpers: u32,
) -> Option<MachineCode> {
    let mut r = Reader(record);
    if r.take(MAGIC.len())? != MAGIC {
        return None;
    }
    if r.bytes()? != key {
        return None;
    }
    let alignment = r.u64()?;
    let bytes = r.bytes()?.to_vec();
    let count = r.u32()?;
    let mut relocs = Vec::new();
    for _ in 0..count {
        let offset = r.u32()?;
        let kind = *KINDS.get(usize::from(r.u8()?))?;
        let tag = r.u8()?;
        let value = r.u32()?;
        let addend = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let name = match tag {
            0 if value < helpers => ModuleRelocTarget::user(0, value),
            1 => ModuleRelocTarget::FunctionOffset(id, value),
            _ => return None,
        };
        // A relocation writes 4 or 8 bytes at its offset: inside the code.
        let width = match kind {
            Reloc::Abs8 => 8,
            _ => 4,
        };
        if u64::from(offset) + width > bytes.len() as u64 {
            return None;
        }
        relocs.push(ModuleReloc {
            offset,
            kind,
            name,
            addend,
        });
    }
    if !r.0.is_empty() || !alignment.is_power_of_two() {
        return None;
    }
    Some(MachineCode {
        bytes,
        relocs,
        alignment,
    })
}

/// A [`Hasher`] that keeps every byte written to it: a key made by `Hash`
/// implementations, compared whole (its `finish` is never used).
struct KeyBytes(Vec<u8>);

impl Hasher for KeyBytes {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn finish(&self) -> u64 {
        0
    }
}

/// A cursor over a record.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::{
        AbiParam, ExtFuncData, ExternalName, Function, InstBuilder, Signature, UserExternalName,
        UserFuncName, types,
    };
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// `fn(x: i32) -> i32 { callee(x + addend) }`, `callee` being user
    /// function `callee` of namespace 0.
    fn small_function(addend: i64, callee: u32) -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I32));
        sig.returns.push(AbiParam::new(types::I32));
        let mut func = Function::with_name_signature(UserFuncName::user(0, 7), sig.clone());
        let mut fbc = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fbc);
        let name = b
            .func
            .declare_imported_user_function(UserExternalName::new(0, callee));
        let signature = b.import_signature(sig);
        let called = b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature,
            colocated: false,
            patchable: false,
        });
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let x = b.block_params(entry)[0];
        let sum = b.ins().iadd_imm_s(x, addend);
        let call = b.ins().call(called, &[sum]);
        let result = b.inst_results(call)[0];
        b.ins().return_(&[result]);
        let Ok((_, _, isa)) = crate::new_module() else {
            panic!("this machine has a Cranelift target");
        };
        b.finalize(isa.frontend_config());
        func
    }

    #[test]
    fn keys_follow_the_ir_and_the_names_it_calls() {
        let key = |addend, callee| key_of("target\n", &small_function(addend, callee));
        assert_eq!(key(1, 3), key(1, 3), "the same IR, built twice");
        assert_ne!(key(1, 3), key(2, 3), "another constant");
        assert_ne!(key(1, 3), key(1, 4), "another function called");
        assert_ne!(
            key_of("target\n", &small_function(1, 3)),
            key_of("other\n", &small_function(1, 3)),
            "another target"
        );
    }

    fn sample(id: cranelift_module::FuncId) -> MachineCode {
        MachineCode {
            bytes: vec![0x90; 32],
            relocs: vec![
                ModuleReloc {
                    offset: 4,
                    kind: Reloc::Abs8,
                    name: ModuleRelocTarget::user(0, 2),
                    addend: 0,
                },
                ModuleReloc {
                    offset: 20,
                    kind: Reloc::X86PCRel4,
                    name: ModuleRelocTarget::FunctionOffset(id, 24),
                    addend: -4,
                },
            ],
            alignment: 64,
        }
    }

    #[test]
    fn a_record_reads_back_as_written_with_the_new_function_id() {
        let first = cranelift_module::FuncId::from_u32(12);
        let later = cranelift_module::FuncId::from_u32(30);
        let Some(record) = encode(b"key", &sample(first), 9) else {
            panic!("the sample is kept");
        };
        let Some(code) = decode(&record, b"key", later, 9) else {
            panic!("the record reads back");
        };
        assert_eq!(code.bytes, vec![0x90; 32]);
        assert_eq!(code.alignment, 64);
        assert_eq!(code.relocs.len(), 2);
        assert!(matches!(
            code.relocs[0].name,
            ModuleRelocTarget::User {
                namespace: 0,
                index: 2
            }
        ));
        assert!(
            matches!(code.relocs[1].name, ModuleRelocTarget::FunctionOffset(f, 24) if f == later)
        );
        assert_eq!(code.relocs[1].addend, -4);
    }

    #[test]
    fn another_key_a_cut_record_or_a_bad_offset_reads_as_nothing() {
        let id = cranelift_module::FuncId::from_u32(1);
        let Some(record) = encode(b"key", &sample(id), 9) else {
            panic!("the sample is kept");
        };
        assert!(decode(&record, b"kez", id, 9).is_none());
        assert!(decode(&record, b"key", id, 2).is_none(), "helper 2 of 2");
        for cut in 0..record.len() {
            assert!(
                decode(&record[..cut], b"key", id, 9).is_none(),
                "cut at {cut}"
            );
        }
        let mut longer = record.clone();
        longer.push(0);
        assert!(decode(&longer, b"key", id, 9).is_none());
        let mut far = sample(id);
        far.relocs[0].offset = 28;
        let Some(far) = encode(b"key", &far, 9) else {
            panic!("kept");
        };
        assert!(
            decode(&far, b"key", id, 9).is_none(),
            "an 8-byte write past the end"
        );
    }

    #[test]
    fn code_calling_what_is_not_a_helper_is_not_kept() {
        let id = cranelift_module::FuncId::from_u32(1);
        let mut code = sample(id);
        code.relocs[0].name = ModuleRelocTarget::user(0, 9);
        assert!(encode(b"key", &code, 9).is_none());
        code.relocs[0].name = ModuleRelocTarget::user(1, 2);
        assert!(encode(b"key", &code, 9).is_none());
    }
}
