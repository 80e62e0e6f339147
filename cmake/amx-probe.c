/* Runs one AMX instruction the way ggml does (permission, tile configuration, tilezero),
 * compiled optimised: exit status 0 when AMX code built by this compiler runs on this machine.
 * Used by llama-native.cmake. */
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <immintrin.h>

struct tile_config {
    uint8_t palette_id, start_row;
    uint8_t reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};

int main(void) {
    /* ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA */
    if (syscall(SYS_arch_prctl, 0x1023, 18) != 0) {
        return 1;
    }
    struct tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette_id = 1;
    cfg.colsb[0] = 64;
    cfg.rows[0] = 16;
    _tile_loadconfig(&cfg);
    _tile_zero(0);
    _tile_release();
    return 0;
}
