/*
 * reincarnation: the price store of the ecosystem's Reincarnation program (program id
 * REn8oKyydvjRsistZ2cVi6tksPubvR3bEuLdVTyGknb on mainnet), byte for byte on its interface.
 * Facts: ../shared/spec/ecosystem-programs.md sections 2.7 and 3.1; docs/chain.md.
 *
 * Only `update_price` is implemented: the gateway's price oracle writes the base price with
 * it. The pool account itself (the Anchor account `ReincarnationPool` at
 * PDA(["reincarnation_pool_v2"])) is created at genesis on the local chain.
 *
 *   update_price(new_base_price: u64)
 *     data      sha256("global:update_price")[:8] = 3d22759b4b227bd0 || u64 LE   (16 bytes)
 *     accounts  0 authority          signer (must equal pool.authority)
 *               1 reincarnation_pool writable, PDA ["reincarnation_pool_v2"] with its stored bump
 *     effect    base_price = arg, price_updated_at = clock.unix_timestamp; premium_bps unchanged
 *     event     PriceUpdated (9a485796f6e617d9): old_price u64, new_price u64,
 *               updated_by Pubkey, timestamp i64, logged as "Program data: <base64>"
 *
 * ReincarnationPool data (borsh after the 8-byte discriminator 8b0733331e05a697): the first
 * field is `name: String` (u32 length n + bytes), so every later offset moves with n:
 *   12+n authority, ..., 300+n base_price u64, 308+n premium_bps u64,
 *   316+n price_updated_at i64, ..., 445+n bump u8, 446+n _reserved [u8;32]  (478+n bytes)
 *
 * Errors: Anchor framework codes (sol_common.h) and the program's own:
 *   6011 PriceExceedsMaximum (> 1 000 000 000), 6012 PriceBelowMinimum (< 10 000),
 *   6013 Unauthorized (signer is not pool.authority).
 *
 * Built freestanding (no libc, no SDK): see sol_abi.h and the Makefile.
 */
#define PROGRAM_NAME "reincarnation"
#include "sol_common.h"

#define ERR_PRICE_EXCEEDS_MAXIMUM 6011
#define ERR_PRICE_BELOW_MINIMUM 6012
#define ERR_UNAUTHORIZED 6013

#define MIN_BASE_PRICE 10000ULL
#define MAX_BASE_PRICE 1000000000ULL

/* Offsets after the name, relative to 8 + 4 + n (the end of the String). */
#define REL_AUTHORITY 0
#define REL_BASE_PRICE 288
#define REL_PRICE_UPDATED_AT 304
#define REL_BUMP 433
#define POOL_FIXED_LEN (12 + 466) /* disc + name length + every field after the name */

static const u8 DISC_UPDATE_PRICE[8] = {0x3d, 0x22, 0x75, 0x9b, 0x4b, 0x22, 0x7b, 0xd0};
static const u8 DISC_POOL[8] = {0x8b, 0x07, 0x33, 0x33, 0x1e, 0x05, 0xa6, 0x97};
static const u8 DISC_PRICE_UPDATED[8] = {0x9a, 0x48, 0x57, 0x96, 0xf6, 0xe6, 0x17, 0xd9};
static const char POOL_SEED[] = "reincarnation_pool_v2";
#define POOL_SEED_LEN (sizeof(POOL_SEED) - 1)

__attribute__((noinline)) static u64 process_update_price(Context *ctx) {
    if (ctx->data_len < 16) FAIL(ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE, "bad update_price data");
    if (ctx->num_accounts < 2) FAIL(ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS, "update_price needs 2 accounts");
    SolAccountInfo *authority = &ctx->accounts[0];
    SolAccountInfo *pool = &ctx->accounts[1];
    if (!authority->is_signer) FAIL(ANCHOR_ACCOUNT_NOT_SIGNER, "authority must sign");

    u64 rc = check_anchor_account(ctx, pool, DISC_POOL, 12);
    if (rc != 0) {
        if (rc == ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM) FAIL(rc, "pool not owned by program");
        if (rc == ANCHOR_ACCOUNT_NOT_INITIALIZED) FAIL(rc, "pool not initialized");
        FAIL(rc, "not a ReincarnationPool account");
    }
    u8 *d = pool->data;
    u64 name_len = get_u32(d + 8);
    if (name_len > pool->data_len || pool->data_len - name_len < POOL_FIXED_LEN ||
        !utf8_valid(d + 12, name_len))
        FAIL(ANCHOR_ACCOUNT_DID_NOT_DESERIALIZE, "pool data does not deserialize");
    u8 *fields = d + 12 + name_len;
    if (!pool->is_writable) FAIL(ANCHOR_CONSTRAINT_MUT, "pool must be writable");

    u8 bump = fields[REL_BUMP];
    SolSignerSeed seeds[2] = {
        {(const u8 *)POOL_SEED, POOL_SEED_LEN},
        {&bump, 1},
    };
    SolPubkey expected;
    if (sol_create_program_address(seeds, 2, ctx->program_id, &expected) != 0 ||
        !key_eq(&expected, pool->key))
        FAIL(ANCHOR_CONSTRAINT_SEEDS, "pool is not the reincarnation_pool_v2 PDA");
    if (!key_eq(authority->key, (const SolPubkey *)(fields + REL_AUTHORITY)))
        FAIL(ERR_UNAUTHORIZED, "signer is not the pool authority");

    u64 new_price = get_u64(ctx->data + 8);
    if (new_price < MIN_BASE_PRICE) FAIL(ERR_PRICE_BELOW_MINIMUM, "price below minimum");
    if (new_price > MAX_BASE_PRICE) FAIL(ERR_PRICE_EXCEEDS_MAXIMUM, "price exceeds maximum");

    long long now = unix_now();
    u64 old_price = get_u64(fields + REL_BASE_PRICE);
    put_u64(fields + REL_BASE_PRICE, new_price);
    put_u64(fields + REL_PRICE_UPDATED_AT, (u64)now);

    u8 event[64];
    copy_bytes(event, DISC_PRICE_UPDATED, 8);
    put_u64(event + 8, old_price);
    put_u64(event + 16, new_price);
    copy_bytes(event + 24, authority->key->x, 32);
    put_u64(event + 56, (u64)now);
    SolBytes parts[1] = {{event, sizeof(event)}};
    sol_log_data(parts, 1);
    return 0;
}

u64 entrypoint(u8 *input) {
    Context ctx;
    deserialize(input, &ctx);
    if (ctx.data_len < 8) FAIL(ANCHOR_INSTRUCTION_MISSING, "instruction data too short");
    if (bytes_eq(ctx.data, DISC_UPDATE_PRICE, 8)) return process_update_price(&ctx);
    FAIL(ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND, "unknown instruction");
}
