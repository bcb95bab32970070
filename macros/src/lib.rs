//! `#[c_export]`: the one wrapper of every function of EPMPI's C interface.
//!
//! Written on a function of `include/ep_mpi.h`,
//!
//! ```ignore
//! /// Docs ...
//! #[no_mangle]
//! #[c_export]
//! pub unsafe extern "C" fn EP_Send(buf: *const c_void, /* ... */ comm: EP_Comm) -> c_int {
//!     send_blocking(comm, buf, /* ... */)
//! }
//! ```
//!
//! it checks the exported signature (public, `unsafe extern "C"`, `#[no_mangle]`, returning
//! `c_int`) and turns the body, an expression of type `EpResult<()>`, into
//! `crate::ffi::boundary::run("EP_Send", || -> EpResult<()> { body })`: the call's name comes
//! from the function's own, so it is written once. The signature stays in the source as
//! written, where cbindgen reads it to generate the header.

use proc_macro::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{parse_macro_input, Error, ItemFn, ReturnType, Type};

/// See the crate documentation. Takes no arguments.
#[proc_macro_attribute]
pub fn c_export(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        return Error::new(attr.span(), "#[c_export] takes no arguments").to_compile_error().into();
    }
    let f = parse_macro_input!(item as ItemFn);
    match check(&f) {
        Ok(()) => expand(f).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The signature every exported function has.
fn check(f: &ItemFn) -> syn::Result<()> {
    let sig = &f.sig;
    if !matches!(f.vis, syn::Visibility::Public(_)) {
        return Err(Error::new(sig.ident.span(), "an exported function is `pub`"));
    }
    if sig.unsafety.is_none() {
        return Err(Error::new(sig.ident.span(), "an exported function is `unsafe` (its callers pass raw pointers)"));
    }
    let c_abi = sig.abi.as_ref().and_then(|a| a.name.as_ref()).is_some_and(|n| n.value() == "C");
    if !c_abi {
        return Err(Error::new(sig.ident.span(), "an exported function is `extern \"C\"`"));
    }
    if !f.attrs.iter().any(|a| a.path().is_ident("no_mangle")) {
        return Err(Error::new(sig.ident.span(), "an exported function has `#[no_mangle]` (written out, so cbindgen sees it)"));
    }
    let returns_c_int = match &sig.output {
        ReturnType::Type(_, t) => matches!(&**t, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "c_int")),
        ReturnType::Default => false,
    };
    if !returns_c_int {
        return Err(Error::new(sig.output.span(), "an exported function returns `c_int` (the error code)"));
    }
    Ok(())
}

fn expand(f: ItemFn) -> proc_macro2::TokenStream {
    let ItemFn { attrs, vis, sig, block } = f;
    let name = sig.ident.to_string();
    let stmts = &block.stmts;
    quote! {
        #(#attrs)*
        #vis #sig {
            crate::ffi::boundary::run(#name, || -> crate::error::EpResult<()> { #(#stmts)* })
        }
    }
}
