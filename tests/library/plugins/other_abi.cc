// Stands for a library built against another opkit ABI: its strong
// definition beats the weak ones opkit's headers put in the other sources.
extern "C" {
[[gnu::visibility("default")]] extern const unsigned opkit_abi_version = 999;
}
