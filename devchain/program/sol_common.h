/*
 * Helpers shared by our Anchor-compatible programs (mcd_token.c, reincarnation.c): the input
 * deserializer, byte helpers, the rent formula, Anchor's framework error codes and the
 * checks Anchor's `Account<T>` / `Signer` / `mut` / `seeds` constraints make.
 *
 * Include after defining PROGRAM_NAME (a string literal used as the log prefix). Everything
 * here is `static inline` so a program that does not use a helper does not trip -Wunused.
 */
#ifndef MCC_SOL_COMMON_H
#define MCC_SOL_COMMON_H

#include "sol_abi.h"

/* Anchor 0.30 framework error codes (anchor-lang src/error.rs), so our refusals read like the
 * real programs' ones. Program-specific codes (6000 + index) are in each program. */
#define ANCHOR_INSTRUCTION_MISSING 100          /* data shorter than a discriminator */
#define ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND 101 /* unknown discriminator */
#define ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE 102
#define ANCHOR_CONSTRAINT_MUT 2000
#define ANCHOR_CONSTRAINT_SEEDS 2006
#define ANCHOR_ACCOUNT_DISCRIMINATOR_NOT_FOUND 3001
#define ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH 3002
#define ANCHOR_ACCOUNT_DID_NOT_DESERIALIZE 3003
#define ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS 3005
#define ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM 3007
#define ANCHOR_INVALID_PROGRAM_ID 3008
#define ANCHOR_ACCOUNT_NOT_SIGNER 3010
#define ANCHOR_ACCOUNT_NOT_INITIALIZED 3012
/* The runtime's encoding of Custom(0): a program cannot return 0 (that is success). */
#define CUSTOM_ZERO ((u64)1 << 32)
#define ERR_RENT_UNAVAILABLE 1 /* our own: rent sysvar unusable (never on a real cluster) */

#define MAX_ACCOUNTS 6 /* we use at most 5; more are walked over but not kept */

typedef struct {
    SolAccountInfo accounts[MAX_ACCOUNTS];
    u64 num_accounts; /* as given, may exceed MAX_ACCOUNTS */
    const u8 *data;
    u64 data_len;
    const SolPubkey *program_id;
} Context;

/* Log the reason and return the code: one call per site with a literal, so no table of
 * string pointers (which would need data relocations our linker does not do). */
#define FAIL(code, msg)                                                    \
    do {                                                                   \
        sol_log_(PROGRAM_NAME ": " msg, sizeof(PROGRAM_NAME ": " msg) - 1); \
        return (code);                                                     \
    } while (0)

static inline bool key_eq(const SolPubkey *a, const SolPubkey *b) {
    /* Byte loop: keys in the input buffer are not always 8-aligned. */
    u8 diff = 0;
    for (int i = 0; i < 32; i++) diff |= a->x[i] ^ b->x[i];
    return diff == 0;
}

static inline bool key_is_zero(const SolPubkey *a) {
    u8 acc = 0;
    for (int i = 0; i < 32; i++) acc |= a->x[i];
    return acc == 0; /* the system program id is 32 zero bytes */
}

static inline bool bytes_eq(const u8 *a, const u8 *b, u64 n) {
    u8 diff = 0;
    for (u64 i = 0; i < n; i++) diff |= a[i] ^ b[i];
    return diff == 0;
}

static inline void copy_bytes(u8 *dst, const u8 *src, u64 n) {
    for (u64 i = 0; i < n; i++) dst[i] = src[i];
}

static inline void zero_bytes(u8 *dst, u64 n) {
    for (u64 i = 0; i < n; i++) dst[i] = 0;
}

static inline void put_u64(u8 *dst, u64 v) {
    for (int i = 0; i < 8; i++) dst[i] = (u8)(v >> (8 * i));
}

static inline u64 get_u64(const u8 *src) {
    u64 v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | src[i];
    return v;
}

static inline u64 get_u32(const u8 *src) {
    return (u64)src[0] | ((u64)src[1] << 8) | ((u64)src[2] << 16) | ((u64)src[3] << 24);
}

/* Rust's str::from_utf8 rules (borsh refuses a String that breaks them): no overlong forms,
 * no surrogates, nothing above U+10FFFF. */
static inline bool utf8_valid(const u8 *s, u64 n) {
    u64 i = 0;
    while (i < n) {
        u8 c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        u64 need;
        u32 cp, min;
        if ((c & 0xe0) == 0xc0) {
            need = 1, cp = c & 0x1f, min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            need = 2, cp = c & 0x0f, min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            need = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (n - i <= need) return false;
        for (u64 k = 1; k <= need; k++) {
            u8 d = s[i + k];
            if ((d & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += need + 1;
    }
    return true;
}

/* Deserialize the runtime's input buffer in place: account infos point into it, so writes
 * to lamports/data/owner through them are what the runtime reads back. */
__attribute__((noinline)) static void deserialize(u8 *in, Context *ctx) {
    u64 n = *(u64 *)in;
    in += 8;
    ctx->num_accounts = n;
    for (u64 i = 0; i < n; i++) {
        u8 dup = in[0];
        if (dup == SOL_NON_DUP_MARKER) {
            u64 data_len = *(u64 *)(in + 80);
            if (i < MAX_ACCOUNTS) {
                SolAccountInfo *a = &ctx->accounts[i];
                a->is_signer = in[1] != 0;
                a->is_writable = in[2] != 0;
                a->executable = in[3] != 0;
                a->key = (SolPubkey *)(in + 8);
                a->owner = (SolPubkey *)(in + 40);
                a->lamports = (u64 *)(in + 72);
                a->data_len = data_len;
                a->data = in + 88;
            }
            in += 88 + data_len + SOL_MAX_PERMITTED_DATA_INCREASE;
            in = (u8 *)(((u64)in + 7) & ~(u64)7);
            if (i < MAX_ACCOUNTS) ctx->accounts[i].rent_epoch = *(u64 *)in;
            in += 8;
        } else {
            if (i < MAX_ACCOUNTS && dup < MAX_ACCOUNTS) {
                /* Field by field: a struct copy could become a memcpy call. */
                SolAccountInfo *a = &ctx->accounts[i];
                const SolAccountInfo *b = &ctx->accounts[dup];
                a->key = b->key;
                a->lamports = b->lamports;
                a->data_len = b->data_len;
                a->data = b->data;
                a->owner = b->owner;
                a->rent_epoch = b->rent_epoch;
                a->is_signer = b->is_signer;
                a->is_writable = b->is_writable;
                a->executable = b->executable;
            }
            in += 8;
        }
    }
    ctx->data_len = *(u64 *)in;
    in += 8;
    ctx->data = in;
    ctx->program_id = (const SolPubkey *)(in + ctx->data_len);
}

/* Rent-exempt minimum for `space` bytes, like the runtime computes it:
 * (128 + space) * lamports_per_byte_year * exemption_threshold. The threshold is an f64
 * and SBPF has no floating point, so it is decoded by hand and rounded up to an integer
 * (it is 2.0 on every cluster). */
static inline u64 rent_exempt_minimum(u64 space, u64 *out) {
    SolRent rent;
    zero_bytes((u8 *)&rent, sizeof(rent));
    if (sol_get_rent_sysvar(&rent) != 0) return ERR_RENT_UNAVAILABLE;
    u64 bits = rent.exemption_threshold_bits;
    u64 exponent = (bits >> 52) & 0x7ff;
    u64 mantissa = bits & (((u64)1 << 52) - 1);
    u64 multiplier;
    if (bits >> 63 || exponent == 0x7ff) return ERR_RENT_UNAVAILABLE; /* negative/NaN/inf */
    if (exponent < 1023) {
        multiplier = 1; /* 0 <= threshold < 1: still pay at least one year's worth */
    } else {
        u64 e = exponent - 1023;
        if (e > 16) return ERR_RENT_UNAVAILABLE;
        u64 full = ((u64)1 << 52) | mantissa;
        u64 shift = 52 - e;
        multiplier = (full >> shift) + ((full & (((u64)1 << shift) - 1)) != 0);
    }
    *out = (SOL_ACCOUNT_STORAGE_OVERHEAD + space) * rent.lamports_per_byte_year * multiplier;
    return 0;
}

static inline long long unix_now(void) {
    SolClock clock;
    zero_bytes((u8 *)&clock, sizeof(clock));
    sol_get_clock_sysvar(&clock);
    return clock.unix_timestamp;
}

/* Anchor's `Account<'info, T>` load: owned by this program (an empty system account is "not
 * initialized"), the 8-byte discriminator, then at least `min_len` bytes to deserialize. */
static inline u64 check_anchor_account(const Context *ctx, const SolAccountInfo *a,
                                       const u8 *disc, u64 min_len) {
    if (!key_eq(a->owner, ctx->program_id)) {
        if (*a->lamports == 0 && key_is_zero(a->owner)) return ANCHOR_ACCOUNT_NOT_INITIALIZED;
        return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
    }
    if (a->data_len < 8) return ANCHOR_ACCOUNT_DISCRIMINATOR_NOT_FOUND;
    if (!bytes_eq(a->data, disc, 8)) return ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH;
    if (a->data_len < min_len) return ANCHOR_ACCOUNT_DID_NOT_DESERIALIZE;
    return 0;
}

#endif
