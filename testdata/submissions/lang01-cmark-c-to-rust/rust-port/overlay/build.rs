// The shared library keeps State A's soname.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcmark.so.0.30.2");
}
