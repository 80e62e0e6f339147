//! Lets the `ragjudge` binary find the llama.cpp libraries that the build puts beside it
//! (`libllama.so`, `libggml*.so`: ragjudge-llama's `cpu-variants` feature links them
//! dynamically), wherever the folder is moved.

fn main() {
    match std::env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("linux" | "android" | "freebsd" | "netbsd" | "openbsd") => {
            println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN");
        }
        Ok("macos" | "ios") => println!("cargo:rustc-link-arg-bins=-Wl,-rpath,@loader_path"),
        _ => {}
    }
}
