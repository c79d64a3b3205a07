/*
 * mcd_whitelist: the on-chain whitelist of projects allowed to use MCD.
 *
 * One account per project, at the program-derived address
 *     PDA = find_program_address(["mcd_whitelist", project_id as u64 LE], program_id)
 * (canonical bump only, so a project id has exactly one possible entry).
 *
 * Entry account data (ENTRY_SIZE = 80 bytes, little-endian, fields 8-aligned):
 *     off  size  field
 *       0     1  version        = 1 (doubles as the discriminator)
 *       1     1  status         1 = active, 2 = suspended
 *       2     1  bump           canonical PDA bump
 *       3     5  reserved       zero
 *       8     8  project_id     u64
 *      16    32  wallet         the project's wallet
 *      48    32  authority      the signer of `add`; only it may set_status / remove
 *
 * Instructions (first byte of instruction data = tag):
 *   0 add        [0][project_id u64 LE][wallet 32][bump u8]            (42 bytes)
 *                accounts: authority (signer, writable, pays rent), entry PDA (writable),
 *                          system program
 *                Anyone may add an entry, but only while the project's PDA is free; the
 *                signer becomes the entry's authority. The gateway adds entries with its
 *                whitelist_authority key, so it is the authority of every entry it makes.
 *   1 set_status [1][status u8]                                          (2 bytes)
 *                accounts: authority (signer), entry PDA (writable)
 *   2 remove     [2]                                                     (1 byte)
 *                accounts: authority (signer, writable), entry PDA (writable)
 *                Moves all the entry's lamports to the authority, zeroes and truncates its
 *                data and gives it back to the system program, so it is garbage-collected
 *                and the project id can be added again.
 *
 * Errors: custom program error codes, see the ERR_* list below (mirrored in
 * chain/whitelist.py). Every refusal also logs "mcd_whitelist: <reason>".
 *
 * Built freestanding (no libc, no SDK): see sol_abi.h and the Makefile.
 */
#include "sol_abi.h"

#define ERR_INVALID_INSTRUCTION 1  /* unknown tag or wrong instruction data length */
#define ERR_NOT_ENOUGH_ACCOUNTS 2
#define ERR_MISSING_SIGNER 3       /* authority did not sign */
#define ERR_NOT_WRITABLE 4         /* an account that must be writable is not */
#define ERR_INVALID_PDA 5          /* entry account is not the canonical PDA of project_id */
#define ERR_ALREADY_EXISTS 6       /* add: the PDA already holds lamports, data or an owner */
#define ERR_WRONG_SYSTEM_PROGRAM 7 /* add: third account is not the system program */
#define ERR_NOT_OWNED 8            /* entry account is not owned by this program */
#define ERR_INVALID_ENTRY 9        /* entry data too short or unknown version */
#define ERR_NOT_AUTHORITY 10       /* signer is not the entry's stored authority */
#define ERR_BAD_STATUS 11          /* status is not 1 (active) or 2 (suspended) */
#define ERR_RENT_UNAVAILABLE 12    /* rent sysvar unreadable or unusable */

#define TAG_ADD 0
#define TAG_SET_STATUS 1
#define TAG_REMOVE 2

#define ENTRY_VERSION 1
#define ENTRY_SIZE 80
#define OFF_VERSION 0
#define OFF_STATUS 1
#define OFF_BUMP 2
#define OFF_PROJECT_ID 8
#define OFF_WALLET 16
#define OFF_AUTHORITY 48

#define STATUS_ACTIVE 1
#define STATUS_SUSPENDED 2

#define ADD_DATA_LEN 42
#define MAX_ACCOUNTS 4 /* we use at most 3; more are walked over but not kept */

static const char SEED_PREFIX[] = "mcd_whitelist";
#define SEED_PREFIX_LEN (sizeof(SEED_PREFIX) - 1)

typedef struct {
    SolAccountInfo accounts[MAX_ACCOUNTS];
    u64 num_accounts; /* as given, may exceed MAX_ACCOUNTS */
    const u8 *data;
    u64 data_len;
    const SolPubkey *program_id;
} Context;

/* Log the reason and return the code: one call per site with a literal, so no table of
 * string pointers (which would need data relocations our linker does not do). */
#define FAIL(code, msg)                                                  \
    do {                                                                 \
        sol_log_("mcd_whitelist: " msg, sizeof("mcd_whitelist: " msg) - 1); \
        return (code);                                                   \
    } while (0)

static bool key_eq(const SolPubkey *a, const SolPubkey *b) {
    /* Byte loop: the program id in the input buffer is not 8-aligned. */
    u8 diff = 0;
    for (int i = 0; i < 32; i++) diff |= a->x[i] ^ b->x[i];
    return diff == 0;
}

static bool key_is_zero(const SolPubkey *a) {
    u8 acc = 0;
    for (int i = 0; i < 32; i++) acc |= a->x[i];
    return acc == 0; /* the system program id is 32 zero bytes */
}

static void copy_bytes(u8 *dst, const u8 *src, u64 n) {
    for (u64 i = 0; i < n; i++) dst[i] = src[i];
}

static void zero_bytes(u8 *dst, u64 n) {
    for (u64 i = 0; i < n; i++) dst[i] = 0;
}

static void put_u64(u8 *dst, u64 v) {
    for (int i = 0; i < 8; i++) dst[i] = (u8)(v >> (8 * i));
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
 * (it is 2.0 on every cluster; overpaying a fraction is harmless, remove refunds it all). */
static u64 rent_exempt_minimum(u64 space, u64 *out) {
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

__attribute__((noinline)) static u64 process_add(Context *ctx) {
    if (ctx->data_len != ADD_DATA_LEN) FAIL(ERR_INVALID_INSTRUCTION, "bad add data");
    if (ctx->num_accounts < 3) FAIL(ERR_NOT_ENOUGH_ACCOUNTS, "add needs 3 accounts");
    SolAccountInfo *authority = &ctx->accounts[0];
    SolAccountInfo *entry = &ctx->accounts[1];
    SolAccountInfo *system = &ctx->accounts[2];
    if (!authority->is_signer) FAIL(ERR_MISSING_SIGNER, "authority must sign");
    if (!authority->is_writable || !entry->is_writable)
        FAIL(ERR_NOT_WRITABLE, "authority and entry must be writable");
    if (!key_is_zero(system->key)) FAIL(ERR_WRONG_SYSTEM_PROGRAM, "not the system program");

    const u8 *project_id_le = ctx->data + 1;
    const u8 *wallet = ctx->data + 9;
    u8 bump = ctx->data[41];

    SolSignerSeed seeds[3] = {
        {(const u8 *)SEED_PREFIX, SEED_PREFIX_LEN},
        {project_id_le, 8},
        {&bump, 1},
    };
    /* find (not create) so only the canonical bump is accepted: one entry per project. */
    SolPubkey expected;
    u8 canonical_bump = 0;
    if (sol_try_find_program_address(seeds, 2, ctx->program_id, &expected, &canonical_bump) != 0)
        FAIL(ERR_INVALID_PDA, "no PDA for project");
    if (!key_eq(&expected, entry->key) || canonical_bump != bump)
        FAIL(ERR_INVALID_PDA, "wrong PDA or bump");
    /* A PDA that already has lamports, data or an owner is taken (including pre-funded
     * ones: CreateAccount would refuse them anyway). */
    if (*entry->lamports != 0 || entry->data_len != 0 || !key_is_zero(entry->owner))
        FAIL(ERR_ALREADY_EXISTS, "entry already exists");

    u64 lamports;
    if (rent_exempt_minimum(ENTRY_SIZE, &lamports) != 0)
        FAIL(ERR_RENT_UNAVAILABLE, "rent sysvar unusable");

    /* System program CreateAccount: u32 tag 0, u64 lamports, u64 space, [32] owner. */
    u8 create[52];
    zero_bytes(create, 4);
    put_u64(create + 4, lamports);
    put_u64(create + 12, ENTRY_SIZE);
    copy_bytes(create + 20, ctx->program_id->x, 32);
    SolAccountMeta metas[2] = {
        {authority->key, true, true},
        {entry->key, true, true},
    };
    SolInstruction ix = {system->key, metas, 2, create, sizeof(create)};
    SolSignerSeeds signer = {seeds, 3};
    u64 rc = sol_invoke_signed_c(&ix, ctx->accounts, 3, &signer, 1);
    if (rc != 0) return rc; /* the runtime aborts on CPI failure; kept for clarity */

    /* The runtime wrote the new length into the input buffer just before the data. */
    if (*(u64 *)(entry->data - 8) < ENTRY_SIZE) FAIL(ERR_INVALID_ENTRY, "entry not allocated");
    u8 *d = entry->data;
    d[OFF_VERSION] = ENTRY_VERSION;
    d[OFF_STATUS] = STATUS_ACTIVE;
    d[OFF_BUMP] = bump;
    zero_bytes(d + 3, 5);
    copy_bytes(d + OFF_PROJECT_ID, project_id_le, 8);
    copy_bytes(d + OFF_WALLET, wallet, 32);
    copy_bytes(d + OFF_AUTHORITY, authority->key->x, 32);
    return 0;
}

/* Shared checks of set_status and remove: a signed stored authority over a valid entry. */
static u64 check_entry_authority(Context *ctx) {
    if (ctx->num_accounts < 2) FAIL(ERR_NOT_ENOUGH_ACCOUNTS, "needs authority and entry");
    SolAccountInfo *authority = &ctx->accounts[0];
    SolAccountInfo *entry = &ctx->accounts[1];
    if (!authority->is_signer) FAIL(ERR_MISSING_SIGNER, "authority must sign");
    if (!entry->is_writable) FAIL(ERR_NOT_WRITABLE, "entry must be writable");
    if (!key_eq(entry->owner, ctx->program_id)) FAIL(ERR_NOT_OWNED, "entry not owned by program");
    if (entry->data_len < ENTRY_SIZE || entry->data[OFF_VERSION] != ENTRY_VERSION)
        FAIL(ERR_INVALID_ENTRY, "not a whitelist entry");
    if (!key_eq(authority->key, (const SolPubkey *)(entry->data + OFF_AUTHORITY)))
        FAIL(ERR_NOT_AUTHORITY, "signer is not the entry authority");
    return 0;
}

__attribute__((noinline)) static u64 process_set_status(Context *ctx) {
    if (ctx->data_len != 2) FAIL(ERR_INVALID_INSTRUCTION, "bad set_status data");
    u64 rc = check_entry_authority(ctx);
    if (rc != 0) return rc;
    u8 status = ctx->data[1];
    if (status != STATUS_ACTIVE && status != STATUS_SUSPENDED)
        FAIL(ERR_BAD_STATUS, "status must be 1 or 2");
    ctx->accounts[1].data[OFF_STATUS] = status;
    return 0;
}

__attribute__((noinline)) static u64 process_remove(Context *ctx) {
    if (ctx->data_len != 1) FAIL(ERR_INVALID_INSTRUCTION, "bad remove data");
    u64 rc = check_entry_authority(ctx);
    if (rc != 0) return rc;
    SolAccountInfo *authority = &ctx->accounts[0];
    SolAccountInfo *entry = &ctx->accounts[1];
    if (!authority->is_writable) FAIL(ERR_NOT_WRITABLE, "authority must be writable");
    *authority->lamports += *entry->lamports;
    *entry->lamports = 0;
    zero_bytes(entry->data, entry->data_len);
    /* Truncate (the runtime reads the length back from the input buffer) and hand the
     * empty account back to the system program, like a fresh address. */
    *(u64 *)(entry->data - 8) = 0;
    entry->data_len = 0;
    zero_bytes(entry->owner->x, 32);
    return 0;
}

u64 entrypoint(u8 *input) {
    Context ctx;
    deserialize(input, &ctx);
    if (ctx.data_len == 0) FAIL(ERR_INVALID_INSTRUCTION, "empty instruction data");
    switch (ctx.data[0]) {
    case TAG_ADD:
        return process_add(&ctx);
    case TAG_SET_STATUS:
        return process_set_status(&ctx);
    case TAG_REMOVE:
        return process_remove(&ctx);
    default:
        FAIL(ERR_INVALID_INSTRUCTION, "unknown instruction");
    }
}
