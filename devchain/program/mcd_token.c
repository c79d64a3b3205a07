/*
 * mcd_token: the whitelist part of the ecosystem's MCD Token program (program id
 * McDVieuEFv5ucnM3C7p8wsT6LY8BAipKDrTG9HjAu3R on mainnet), byte for byte on its interface.
 * Facts: ../shared/spec/ecosystem-programs.md sections 2.6, 3.1 and 3.3; docs/chain.md.
 *
 * Accounts (Anchor: 8-byte discriminator, then borsh):
 *   McdConfig     PDA ["mcd_config"], 209 bytes, disc 8efbac0d190844c2. We read
 *                 8 authority (Pubkey) and 208 bump; it is created at genesis on the local chain.
 *   McdWhitelist  PDA ["mcd_whitelist", project_id u64 LE], 130 bytes, disc e4c816307de99739:
 *                   8 project_id u64     16 wallet_address Pubkey   48 project_name [u8;64]
 *                 112 registered_at i64 120 status u8 (0 active, 1 suspended)
 *                 121 updated_at i64   129 bump u8
 *
 * Instructions (data = sha256("global:<name>")[:8] || borsh args; accounts in this order):
 *   add_to_whitelist(project_id u64, project_name String)   9dd3343690510537
 *       authority [signer, writable, pays rent], mcd_config, whitelist [writable, created],
 *       wallet_address (unchecked, stored), system_program
 *   update_whitelist_status(project_id u64, status u8)        ccc40cba81d2c4ca
 *       authority [signer, writable], mcd_config, whitelist [writable]
 *   remove_from_whitelist(project_id u64)                     0790d8eff3ecc1eb
 *       authority [signer, writable, gets the rent], mcd_config, whitelist [writable, closed],
 *       system_program
 * Every instruction requires authority == mcd_config.authority, so nobody else can create,
 * change or remove an entry (no squatting of a future project id).
 *
 * Errors (custom codes): Anchor framework codes (sol_common.h), 0 = the system program's
 * AccountAlreadyInUse (add over an existing entry, as Anchor's `init` fails), and
 *   6000 Unauthorized, 6015 ProjectNameTooLong (> 64 bytes), 6018 InvalidStatus.
 *
 * Built freestanding (no libc, no SDK): see sol_abi.h and the Makefile.
 */
#define PROGRAM_NAME "mcd_token"
#include "sol_common.h"

#define ERR_UNAUTHORIZED 6000
#define ERR_PROJECT_NAME_TOO_LONG 6015
#define ERR_INVALID_STATUS 6018

#define CONFIG_SIZE 209
#define CONFIG_OFF_AUTHORITY 8
#define CONFIG_OFF_BUMP 208

#define WL_SIZE 130
#define WL_OFF_PROJECT_ID 8
#define WL_OFF_WALLET 16
#define WL_OFF_NAME 48
#define WL_NAME_LEN 64
#define WL_OFF_REGISTERED_AT 112
#define WL_OFF_STATUS 120
#define WL_OFF_UPDATED_AT 121
#define WL_OFF_BUMP 129
#define STATUS_ACTIVE 0
#define STATUS_SUSPENDED 1

static const u8 DISC_ADD[8] = {0x9d, 0xd3, 0x34, 0x36, 0x90, 0x51, 0x05, 0x37};
static const u8 DISC_UPDATE_STATUS[8] = {0xcc, 0xc4, 0x0c, 0xba, 0x81, 0xd2, 0xc4, 0xca};
static const u8 DISC_REMOVE[8] = {0x07, 0x90, 0xd8, 0xef, 0xf3, 0xec, 0xc1, 0xeb};
static const u8 DISC_CONFIG[8] = {0x8e, 0xfb, 0xac, 0x0d, 0x19, 0x08, 0x44, 0xc2};
static const u8 DISC_WHITELIST[8] = {0xe4, 0xc8, 0x16, 0x30, 0x7d, 0xe9, 0x97, 0x39};
static const char CONFIG_SEED[] = "mcd_config";
static const char WHITELIST_SEED[] = "mcd_whitelist";

/* The signer: Anchor's `#[account(mut)] authority: Signer`. */
static u64 check_authority(const SolAccountInfo *authority) {
    if (!authority->is_signer) FAIL(ANCHOR_ACCOUNT_NOT_SIGNER, "authority must sign");
    if (!authority->is_writable) FAIL(ANCHOR_CONSTRAINT_MUT, "authority must be writable");
    return 0;
}

/* `mcd_config: Account<McdConfig>` with seeds ["mcd_config"], bump = stored bump, and
 * constraint mcd_config.authority == authority @ Unauthorized. */
__attribute__((noinline)) static u64 check_config(const Context *ctx,
                                                  const SolAccountInfo *authority,
                                                  const SolAccountInfo *config) {
    u64 rc = check_anchor_account(ctx, config, DISC_CONFIG, CONFIG_SIZE);
    if (rc == ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM) FAIL(rc, "mcd_config not owned by program");
    if (rc == ANCHOR_ACCOUNT_NOT_INITIALIZED) FAIL(rc, "mcd_config not initialized");
    if (rc != 0) FAIL(rc, "not an McdConfig account");
    u8 bump = config->data[CONFIG_OFF_BUMP];
    SolSignerSeed seeds[2] = {
        {(const u8 *)CONFIG_SEED, sizeof(CONFIG_SEED) - 1},
        {&bump, 1},
    };
    SolPubkey expected;
    if (sol_create_program_address(seeds, 2, ctx->program_id, &expected) != 0 ||
        !key_eq(&expected, config->key))
        FAIL(ANCHOR_CONSTRAINT_SEEDS, "mcd_config is not the mcd_config PDA");
    if (!key_eq(authority->key, (const SolPubkey *)(config->data + CONFIG_OFF_AUTHORITY)))
        FAIL(ERR_UNAUTHORIZED, "signer is not the mcd_config authority");
    return 0;
}

static u64 check_system_program(const SolAccountInfo *system) {
    if (!key_is_zero(system->key)) FAIL(ANCHOR_INVALID_PROGRAM_ID, "not the system program");
    return 0;
}

/* An existing entry: `Account<McdWhitelist>`, mut, seeds [.., project_id], bump = stored. */
__attribute__((noinline)) static u64 check_entry(const Context *ctx, const SolAccountInfo *entry,
                                                 const u8 *project_id_le) {
    u64 rc = check_anchor_account(ctx, entry, DISC_WHITELIST, WL_SIZE);
    if (rc == ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM) FAIL(rc, "whitelist not owned by program");
    if (rc == ANCHOR_ACCOUNT_NOT_INITIALIZED) FAIL(rc, "project is not whitelisted");
    if (rc != 0) FAIL(rc, "not an McdWhitelist account");
    if (!entry->is_writable) FAIL(ANCHOR_CONSTRAINT_MUT, "whitelist must be writable");
    u8 bump = entry->data[WL_OFF_BUMP];
    SolSignerSeed seeds[3] = {
        {(const u8 *)WHITELIST_SEED, sizeof(WHITELIST_SEED) - 1},
        {project_id_le, 8},
        {&bump, 1},
    };
    SolPubkey expected;
    if (sol_create_program_address(seeds, 3, ctx->program_id, &expected) != 0 ||
        !key_eq(&expected, entry->key))
        FAIL(ANCHOR_CONSTRAINT_SEEDS, "whitelist is not the project's PDA");
    return 0;
}

static u64 invoke_system(Context *ctx, SolAccountMeta *metas, u64 n_metas, u8 *data, u64 len,
                         const SolSignerSeeds *signer) {
    SolInstruction ix = {ctx->accounts[4].key, metas, n_metas, data, len};
    return sol_invoke_signed_c(&ix, ctx->accounts, 5, signer, signer ? 1 : 0);
}

__attribute__((noinline)) static u64 process_add(Context *ctx) {
    /* borsh: u64 project_id, String project_name (u32 length + UTF-8). */
    if (ctx->data_len < 20) FAIL(ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE, "bad add data");
    const u8 *project_id_le = ctx->data + 8;
    u64 name_len = get_u32(ctx->data + 16);
    const u8 *name = ctx->data + 20;
    if (name_len > ctx->data_len - 20 || !utf8_valid(name, name_len))
        FAIL(ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE, "bad project_name");
    if (ctx->num_accounts < 5) FAIL(ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS, "add needs 5 accounts");
    SolAccountInfo *authority = &ctx->accounts[0];
    SolAccountInfo *config = &ctx->accounts[1];
    SolAccountInfo *entry = &ctx->accounts[2];
    SolAccountInfo *wallet = &ctx->accounts[3];
    SolAccountInfo *system = &ctx->accounts[4];
    u64 rc = check_authority(authority);
    if (rc == 0) rc = check_config(ctx, authority, config);
    if (rc == 0) rc = check_system_program(system);
    if (rc != 0) return rc;

    /* `init` with seeds [.., project_id] and the canonical bump: one entry per project. */
    SolSignerSeed seeds[3] = {
        {(const u8 *)WHITELIST_SEED, sizeof(WHITELIST_SEED) - 1},
        {project_id_le, 8},
        {0, 1},
    };
    SolPubkey expected;
    u8 bump = 0;
    if (sol_try_find_program_address(seeds, 2, ctx->program_id, &expected, &bump) != 0 ||
        !key_eq(&expected, entry->key))
        FAIL(ANCHOR_CONSTRAINT_SEEDS, "whitelist is not the project's PDA");
    seeds[2].addr = &bump;
    if (!entry->is_writable) FAIL(ANCHOR_CONSTRAINT_MUT, "whitelist must be writable");
    if (entry->data_len != 0 || !key_is_zero(entry->owner))
        FAIL(CUSTOM_ZERO, "whitelist account already in use");
    if (name_len > WL_NAME_LEN) FAIL(ERR_PROJECT_NAME_TOO_LONG, "project name over 64 bytes");

    u64 rent;
    if (rent_exempt_minimum(WL_SIZE, &rent) != 0) FAIL(ERR_RENT_UNAVAILABLE, "rent unusable");
    SolSignerSeeds signer = {seeds, 3};
    u8 buf[52];
    if (*entry->lamports == 0) {
        /* CreateAccount: u32 0, u64 lamports, u64 space, [32] owner. */
        SolAccountMeta metas[2] = {{authority->key, true, true}, {entry->key, true, true}};
        zero_bytes(buf, 4);
        put_u64(buf + 4, rent);
        put_u64(buf + 12, WL_SIZE);
        copy_bytes(buf + 20, ctx->program_id->x, 32);
        rc = invoke_system(ctx, metas, 2, buf, 52, &signer);
        if (rc != 0) return rc;
    } else {
        /* Someone sent lamports to the address first: like Anchor, top up, allocate, assign
         * (so pre-funding a PDA cannot block a project). */
        if (*entry->lamports < rent) {
            SolAccountMeta metas[2] = {{authority->key, true, true}, {entry->key, true, false}};
            zero_bytes(buf, 4);
            buf[0] = 2; /* Transfer: u32 2, u64 lamports */
            put_u64(buf + 4, rent - *entry->lamports);
            rc = invoke_system(ctx, metas, 2, buf, 12, 0);
            if (rc != 0) return rc;
        }
        SolAccountMeta meta[1] = {{entry->key, true, true}};
        zero_bytes(buf, 4);
        buf[0] = 8; /* Allocate: u32 8, u64 space */
        put_u64(buf + 4, WL_SIZE);
        rc = invoke_system(ctx, meta, 1, buf, 12, &signer);
        if (rc != 0) return rc;
        zero_bytes(buf, 4);
        buf[0] = 1; /* Assign: u32 1, [32] owner */
        copy_bytes(buf + 4, ctx->program_id->x, 32);
        rc = invoke_system(ctx, meta, 1, buf, 36, &signer);
        if (rc != 0) return rc;
    }
    /* The runtime wrote the new length into the input buffer just before the data. */
    if (*(u64 *)(entry->data - 8) < WL_SIZE) FAIL(ANCHOR_ACCOUNT_DID_NOT_DESERIALIZE, "not allocated");

    long long now = unix_now();
    u8 *d = entry->data;
    zero_bytes(d, WL_SIZE);
    copy_bytes(d, DISC_WHITELIST, 8);
    copy_bytes(d + WL_OFF_PROJECT_ID, project_id_le, 8);
    copy_bytes(d + WL_OFF_WALLET, wallet->key->x, 32);
    copy_bytes(d + WL_OFF_NAME, name, name_len);
    put_u64(d + WL_OFF_REGISTERED_AT, (u64)now);
    d[WL_OFF_STATUS] = STATUS_ACTIVE;
    put_u64(d + WL_OFF_UPDATED_AT, (u64)now);
    d[WL_OFF_BUMP] = bump;
    return 0;
}

__attribute__((noinline)) static u64 process_update_status(Context *ctx) {
    if (ctx->data_len < 17) FAIL(ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE, "bad status data");
    if (ctx->num_accounts < 3) FAIL(ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS, "needs 3 accounts");
    SolAccountInfo *authority = &ctx->accounts[0];
    SolAccountInfo *entry = &ctx->accounts[2];
    u64 rc = check_authority(authority);
    if (rc == 0) rc = check_config(ctx, authority, &ctx->accounts[1]);
    if (rc == 0) rc = check_entry(ctx, entry, ctx->data + 8);
    if (rc != 0) return rc;
    u8 status = ctx->data[16];
    if (status != STATUS_ACTIVE && status != STATUS_SUSPENDED)
        FAIL(ERR_INVALID_STATUS, "status must be 0 (active) or 1 (suspended)");
    entry->data[WL_OFF_STATUS] = status;
    put_u64(entry->data + WL_OFF_UPDATED_AT, (u64)unix_now());
    return 0;
}

__attribute__((noinline)) static u64 process_remove(Context *ctx) {
    if (ctx->data_len < 16) FAIL(ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE, "bad remove data");
    if (ctx->num_accounts < 4) FAIL(ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS, "remove needs 4 accounts");
    SolAccountInfo *authority = &ctx->accounts[0];
    SolAccountInfo *entry = &ctx->accounts[2];
    u64 rc = check_authority(authority);
    if (rc == 0) rc = check_config(ctx, authority, &ctx->accounts[1]);
    if (rc == 0) rc = check_entry(ctx, entry, ctx->data + 8);
    if (rc == 0) rc = check_system_program(&ctx->accounts[3]);
    if (rc != 0) return rc;
    /* Anchor's `close = authority`: all lamports to the authority, owner back to the system
     * program, data truncated to 0 (the runtime reads the length back from the buffer). */
    *authority->lamports += *entry->lamports;
    *entry->lamports = 0;
    zero_bytes(entry->data, entry->data_len);
    *(u64 *)(entry->data - 8) = 0;
    entry->data_len = 0;
    zero_bytes(entry->owner->x, 32);
    return 0;
}

u64 entrypoint(u8 *input) {
    Context ctx;
    deserialize(input, &ctx);
    if (ctx.data_len < 8) FAIL(ANCHOR_INSTRUCTION_MISSING, "instruction data too short");
    if (bytes_eq(ctx.data, DISC_ADD, 8)) return process_add(&ctx);
    if (bytes_eq(ctx.data, DISC_UPDATE_STATUS, 8)) return process_update_status(&ctx);
    if (bytes_eq(ctx.data, DISC_REMOVE, 8)) return process_remove(&ctx);
    FAIL(ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND, "unknown instruction");
}
