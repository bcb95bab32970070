//! The library's layers and the absence of import cycles between its modules.
//!
//! Every module of `src/` is read with `syn`; each path it names (in `use` items, in code, and
//! in the tokens of macro calls) that starts with `crate::`, `super::` or `self::` becomes an
//! edge to the deepest module the path reaches. Test modules (`#[cfg(test)]`) do not count.
//! Two rules are checked:
//!
//! * **No cycle**: the module graph is acyclic, so every module can be read, tested and changed
//!   with only the modules below it in mind.
//! * **Layers in one direction**: the C boundary (`ffi`) uses the handle registry
//!   (`handles`), which uses the engine (communicators, point-to-point, collectives, windows),
//!   which uses the transports (same-process, host MPI, direct mode), which use the host MPI
//!   wrapper (`host`); `error` and `live` serve every layer. No module names a module of a
//!   layer above its own.
//!
//! `cargo test --test layers -- --nocapture` prints the graph, layer by layer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Layers from the top; a module belongs to the entry whose prefix is the longest that names
/// it or one of its ancestors (`engine::transport::local` is a transport, `engine::comm` is
/// the engine).
///
/// * The C boundary turns C arguments into engine calls on objects it finds through the
///   handle registry, which owns every live object behind a handle.
/// * The engine: communicators and their creation, point-to-point operations and matching,
///   progress, requests, collectives, intercommunicators, splits, teams, windows.
/// * The transports move whole messages by one protocol each (same process, host MPI,
///   direct mode): they hand arrivals to the engine's closures and return how a send left,
///   so they never name the matching, communicators or requests above them.
/// * Engine support: the types and primitives every layer of the engine uses, transports
///   included: messages and envelopes, datatypes, rank maps, host operations that own their
///   memory and their orphanage, the waiting backoff and its doorbells, the lock-free ring and its loom switch,
///   meeting points, the work teams share and the copy a same-process message's two threads share,
///   the allocations each thread keeps for reuse.
/// * The host MPI wrapper, then `error` and `live`, which serve everything.
const LAYERS: &[(&str, &[&str])] = &[
    ("C boundary", &["ffi"]),
    ("handle registry", &["handles"]),
    ("engine", &["engine"]),
    ("transports", &["engine::transport", "engine::direct"]),
    (
        "engine support",
        &[
            "engine::message",
            "engine::envelope",
            "engine::datatype",
            "engine::rankmap",
            "engine::spinlock",
            "engine::spare",
            "engine::sync",
            "engine::spsc",
            "engine::inbox",
            "engine::backoff",
            "engine::doorbell",
            "engine::host_op",
            "engine::orphanage",
            "engine::handle_table",
            "engine::meeting",
            "engine::share",
            "engine::shared_copy",
            "engine::matching",
            "engine::fault",
        ],
    ),
    ("host MPI", &["host"]),
    ("support", &["error", "live"]),
];

fn layer_of(module: &str) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (i, (_, prefixes)) in LAYERS.iter().enumerate() {
        for p in prefixes.iter() {
            let hit = module == *p || module.starts_with(&format!("{p}::"));
            if hit && best.is_none_or(|(len, _)| p.len() > len) {
                best = Some((p.len(), i));
            }
        }
    }
    best.map(|(_, i)| i)
}

/// Module path (`engine::p2p`) of a source file, `""` for the crate root.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod") | Some("lib")) {
        parts.pop();
    }
    parts.join("::")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().split_whitespace().collect::<String>() == "test")
    })
}

/// The paths a file names, as segment lists starting with `crate`, `super` or `self`.
#[derive(Default)]
struct Paths(Vec<Vec<String>>);

impl Paths {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.push_with(prefix, &n.ident.to_string()),
            syn::UseTree::Rename(r) => self.push_with(prefix, &r.ident.to_string()),
            syn::UseTree::Glob(_) => self.push_with(prefix, "*"),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }

    fn push_with(&mut self, prefix: &[String], last: &str) {
        let mut p = prefix.to_vec();
        if last != "self" && last != "*" {
            p.push(last.to_string());
        }
        self.push(p);
    }

    fn push(&mut self, p: Vec<String>) {
        if matches!(p.first().map(String::as_str), Some("crate") | Some("super") | Some("self")) {
            self.0.push(p);
        }
    }

    /// Paths in a macro call's tokens (`ep_call!("..", { crate::engine::x() })`).
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let trees: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                proc_macro2::TokenTree::Group(g) => self.tokens(g.stream()),
                proc_macro2::TokenTree::Ident(id) if ["crate", "super", "self"].contains(&id.to_string().as_str()) => {
                    let mut path = vec![id.to_string()];
                    let mut j = i + 1;
                    while let (Some(proc_macro2::TokenTree::Punct(a)), Some(proc_macro2::TokenTree::Punct(b)), Some(proc_macro2::TokenTree::Ident(next))) =
                        (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        j += 3;
                    }
                    self.push(path);
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_cfg_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if !is_cfg_test(&u.attrs) {
            self.use_tree(&mut Vec::new(), &u.tree);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

/// The deepest known module a path from `module` reaches (`None` for the crate root, which
/// only declares modules and re-exports the C interface).
fn resolve(module: &str, path: &[String], modules: &BTreeSet<String>, macros: &BTreeMap<String, String>) -> Option<String> {
    let mut base: Vec<String> = if module.is_empty() { vec![] } else { module.split("::").map(String::from).collect() };
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        _ => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop();
                rest = &rest[1..];
            }
        }
    }
    if base.is_empty() && rest.len() == 1 {
        if let Some(m) = macros.get(&rest[0]) {
            return Some(m.clone());
        }
    }
    let mut best = None;
    for i in 0..=rest.len() {
        let candidate: Vec<String> = base.iter().chain(&rest[..i]).cloned().collect();
        let name = candidate.join("::");
        if modules.contains(&name) {
            best = Some(name);
        }
    }
    best.filter(|m| !m.is_empty())
}

struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let parsed: Vec<(String, syn::File)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            (module_of(&src, f), ast)
        })
        .collect();
    let modules: BTreeSet<String> = parsed.iter().map(|(m, _)| m.clone()).collect();
    // `#[macro_export]` macros live at the crate root but belong to the module defining them.
    let mut macros = BTreeMap::new();
    for (m, ast) in &parsed {
        for item in &ast.items {
            if let syn::Item::Macro(mac) = item {
                let exported = mac.attrs.iter().any(|a| a.path().is_ident("macro_export"));
                if let (true, Some(name)) = (exported, &mac.ident) {
                    macros.insert(name.to_string(), m.clone());
                }
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, ast) in &parsed {
        let mut paths = Paths::default();
        paths.visit_file(ast);
        let out = edges.entry(m.clone()).or_default();
        for p in &paths.0 {
            if let Some(target) = resolve(m, p, &modules, &macros) {
                // A module's own items and its ancestors' `mod` declarations are not uses.
                let ancestor = m.starts_with(&format!("{target}::"));
                if target != *m && !ancestor {
                    out.insert(target);
                }
            }
        }
    }
    Graph { edges }
}

/// Strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.g.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), found: Vec::new() };
    for v in g.edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn every_module_has_a_layer_and_the_graph_prints() {
    let g = graph();
    for (i, (name, _)) in LAYERS.iter().enumerate() {
        println!("{name}:");
        for (m, deps) in g.edges.iter().filter(|(m, _)| layer_of(m) == Some(i)) {
            let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
            println!("  {m} -> {}", deps.join(", "));
        }
    }
    let orphans: Vec<&String> = g.edges.keys().filter(|m| !m.is_empty() && layer_of(m).is_none()).collect();
    assert!(orphans.is_empty(), "modules outside every layer (add them to LAYERS): {orphans:?}");
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let g = graph();
    let mut upward = Vec::new();
    for (m, deps) in &g.edges {
        let Some(lm) = layer_of(m) else { continue };
        for d in deps {
            if layer_of(d).is_some_and(|ld| ld < lm) {
                upward.push(format!("{m} ({}) -> {d} ({})", LAYERS[lm].0, LAYERS[layer_of(d).unwrap()].0));
            }
        }
    }
    assert!(upward.is_empty(), "uses of a higher layer:\n  {}", upward.join("\n  "));
}

#[test]
fn the_module_graph_has_no_cycle() {
    let g = graph();
    let found = cycles(&g);
    let text: Vec<String> = found
        .iter()
        .map(|c| {
            let members: BTreeSet<&String> = c.iter().collect();
            let inner: Vec<String> = c
                .iter()
                .flat_map(|m| g.edges[m].iter().filter(|d| members.contains(d)).map(move |d| format!("{m} -> {d}")))
                .collect();
            format!("cycle through {} modules:\n    {}", c.len(), inner.join("\n    "))
        })
        .collect();
    assert!(found.is_empty(), "{}", text.join("\n  "));
}

/// The checker itself: a cycle and an upward use in a made-up graph are found.
#[test]
fn the_checks_find_what_they_look_for() {
    let mut edges = BTreeMap::new();
    edges.insert("engine::a".to_string(), BTreeSet::from(["engine::b".to_string()]));
    edges.insert("engine::b".to_string(), BTreeSet::from(["engine::a".to_string(), "ffi".to_string()]));
    edges.insert("ffi".to_string(), BTreeSet::new());
    let g = Graph { edges };
    assert_eq!(cycles(&g), vec![vec!["engine::a".to_string(), "engine::b".to_string()]]);
    assert!(layer_of("ffi::boundary") < layer_of("engine::b"));
    assert_eq!(layer_of("engine::transport::local"), Some(3));
    let modules = BTreeSet::from(["engine".to_string(), "engine::p2p".to_string(), "host".to_string()]);
    let path = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let none = BTreeMap::new();
    assert_eq!(resolve("engine::p2p", &path("super::super::host::sys"), &modules, &none).as_deref(), Some("host"));
    assert_eq!(resolve("engine::p2p", &path("crate::engine::p2p::Completion"), &modules, &none).as_deref(), Some("engine::p2p"));
}

/// Only the C interface is public: the engine, the handle registry and the host wrapper take
/// raw addresses from the C boundary's callers and trust them, so a safe public path to them
/// would let safe Rust write anywhere. The crate root may make public only `ffi` (the C
/// functions and their types and constants) and `error` (the error classes).
#[test]
fn only_the_c_interface_is_public() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let ast = syn::parse_file(&std::fs::read_to_string(root).unwrap()).unwrap();
    let public: Vec<String> = ast
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if matches!(m.vis, syn::Visibility::Public(_)) => Some(m.ident.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(public, ["error", "ffi"], "public modules of the crate root");
}
