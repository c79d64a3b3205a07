// The local chain node as a browser game or wallet built on @solana/kit sees it: HTTP RPC on
// MCCGW_RPC_URL, PubSub on MCCGW_WS_URL. Run by tests/chain/test_node_kit.py against a node it
// starts; by hand: MCCGW_RPC_URL=http://127.0.0.1:8899 MCCGW_WS_URL=ws://127.0.0.1:8900 npm test
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
    AccountRole,
    address,
    airdropFactory,
    appendTransactionMessageInstructions,
    compressTransactionMessageUsingAddressLookupTables,
    createSolanaRpc,
    createSolanaRpcSubscriptions,
    createTransactionMessage,
    fetchAddressesForLookupTables,
    generateKeyPairSigner,
    getAddressEncoder,
    getBase64EncodedWireTransaction,
    getProgramDerivedAddress,
    getSignatureFromTransaction,
    getU64Encoder,
    lamports,
    pipe,
    sendAndConfirmTransactionFactory,
    setTransactionMessageFeePayerSigner,
    setTransactionMessageLifetimeUsingBlockhash,
    signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
    findAssociatedTokenPda,
    getCloseAccountInstruction,
    getCreateAssociatedTokenIdempotentInstruction,
    getSyncNativeInstruction,
    TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';

const rpc = createSolanaRpc(process.env.MCCGW_RPC_URL ?? 'http://127.0.0.1:8899');
const rpcSubscriptions = createSolanaRpcSubscriptions(process.env.MCCGW_WS_URL ?? 'ws://127.0.0.1:8900');
const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions });
const airdrop = airdropFactory({ rpc, rpcSubscriptions });
const NATIVE_MINT = address('So11111111111111111111111111111111111111112');
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const LOOKUP_TABLE_PROGRAM = address('AddressLookupTab1e1111111111111111111111111');
const SYSTEM_PROGRAM = address('11111111111111111111111111111111');
const SOL = 1_000_000_000n;
const abort = new AbortController(); // ends every subscription when the tests are done

let payer;
before(async () => {
    payer = await generateKeyPairSigner();
    // requestAirdrop, confirmed through signatureSubscribe (airdropFactory)
    await airdrop({ commitment: 'confirmed', lamports: lamports(10n * SOL), recipientAddress: payer.address });
});
after(() => abort.abort());

async function signed(instructions, extra = (m) => m) {
    const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
        extra,
    );
    return signTransactionMessageWithSigners(message);
}

function memo(text) {
    const data = new TextEncoder().encode(text);
    return { programAddress: MEMO, accounts: [{ address: payer.address, role: AccountRole.READONLY_SIGNER }], data };
}

/** Starts reading a subscription now (kit drops what arrives before the first read) and
 * resolves with its first `n` notifications, or fails after `ms`. */
function take(iterable, n = 1, ms = 15_000) {
    const items = [];
    const reading = (async () => {
        for await (const item of iterable) {
            items.push(item);
            if (items.length >= n) return items;
        }
        throw new Error(`subscription ended after ${items.length} of ${n} notifications`);
    })();
    let timer;
    const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${items.length} of ${n} notifications in ${ms} ms`)), ms);
    });
    return Promise.race([reading, late]).finally(() => clearTimeout(timer));
}

test('a transfer sent and confirmed through signatureSubscribe, its logs through logsSubscribe', async () => {
    const recipient = await generateKeyPairSigner();
    const tx = await signed([
        getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(SOL) }),
        memo('hello "kit"'),
    ]);
    const signature = getSignatureFromTransaction(tx);
    const statuses = await rpcSubscriptions
        .signatureNotifications(signature, { commitment: 'confirmed', enableReceivedNotification: true })
        .subscribe({ abortSignal: abort.signal });
    const logs = await rpcSubscriptions
        .logsNotifications({ mentions: [recipient.address] }, { commitment: 'confirmed' })
        .subscribe({ abortSignal: abort.signal });
    const [seen, logs1] = [take(statuses, 2), take(logs)];
    await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' }).send();

    assert.deepEqual((await seen).map((note) => note.value), ['receivedSignature', { err: null }]);
    const [logged] = await logs1;
    assert.equal(logged.value.signature, signature);
    assert.ok(logged.value.logs.includes('Program log: Memo (len 11): "hello \\"kit\\""'), logged.value.logs);

    const { value: balance } = await rpc.getBalance(recipient.address, { commitment: 'confirmed' }).send();
    assert.equal(balance, SOL);
    // and the way an app confirms its own sends: sendAndConfirmTransactionFactory
    const back = await signed([getTransferSolInstruction({ source: payer, destination: payer.address, amount: 1n })]);
    await sendAndConfirm(back, { commitment: 'confirmed' });
    const { value: found } = await rpc.getSignatureStatuses([getSignatureFromTransaction(back)]).send();
    assert.ok(['confirmed', 'finalized'].includes(found[0].confirmationStatus));
});

test('an account subscription sees the change', async () => {
    const watched = await generateKeyPairSigner();
    const notes = await rpcSubscriptions
        .accountNotifications(watched.address, { commitment: 'confirmed', encoding: 'base64' })
        .subscribe({ abortSignal: abort.signal });
    const first = take(notes);
    const tx = await signed([
        getTransferSolInstruction({ source: payer, destination: watched.address, amount: lamports(2n * SOL) }),
    ]);
    await sendAndConfirm(tx, { commitment: 'confirmed' });
    const [note] = await first;
    assert.equal(note.value.lamports, 2n * SOL);
    assert.equal(note.value.owner, SYSTEM_PROGRAM);
    assert.deepEqual(note.value.data, ['', 'base64']);
    assert.ok(note.context.slot > 0n);
});

test('a v0 transaction through an address lookup table, read back', async () => {
    const recipient = await generateKeyPairSigner();
    const { value: slot } = { value: await rpc.getSlot({ commitment: 'finalized' }).send() };
    const [table, bump] = await getProgramDerivedAddress({
        programAddress: LOOKUP_TABLE_PROGRAM,
        seeds: [getAddressEncoder().encode(payer.address), getU64Encoder().encode(slot)],
    });
    const create = new Uint8Array([0, 0, 0, 0, ...getU64Encoder().encode(slot), bump]);
    const extend = new Uint8Array([2, 0, 0, 0, ...getU64Encoder().encode(1n), ...getAddressEncoder().encode(recipient.address)]);
    const tableAccounts = [
        { address: table, role: AccountRole.WRITABLE },
        { address: payer.address, role: AccountRole.READONLY_SIGNER },
        { address: payer.address, role: AccountRole.WRITABLE_SIGNER },
        { address: SYSTEM_PROGRAM, role: AccountRole.READONLY },
    ];
    const made = await signed([
        { programAddress: LOOKUP_TABLE_PROGRAM, accounts: tableAccounts, data: create },
        { programAddress: LOOKUP_TABLE_PROGRAM, accounts: tableAccounts, data: extend },
    ]);
    await sendAndConfirm(made, { commitment: 'confirmed' });
    // a table's new addresses are usable from the next slot on
    const lookups = await fetchAddressesForLookupTables([table], rpc, { commitment: 'confirmed' });
    assert.deepEqual(lookups[table], [recipient.address]);
    const parsed = await rpc.getAccountInfo(table, { commitment: 'confirmed', encoding: 'jsonParsed' }).send();
    assert.equal(parsed.value.data.program, 'address-lookup-table');
    assert.deepEqual(parsed.value.data.parsed.info.addresses, [recipient.address]);

    const tx = await signed(
        [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(SOL) })],
        (m) => compressTransactionMessageUsingAddressLookupTables(m, lookups),
    );
    await sendAndConfirm(tx, { commitment: 'confirmed' });
    const got = await rpc
        .getTransaction(getSignatureFromTransaction(tx), {
            commitment: 'confirmed',
            encoding: 'json',
            maxSupportedTransactionVersion: 0,
        })
        .send();
    assert.equal(got.version, 0);
    assert.deepEqual(got.transaction.message.addressTableLookups, [
        { accountKey: table, writableIndexes: [0], readonlyIndexes: [] },
    ]);
    assert.deepEqual(got.meta.loadedAddresses, { writable: [recipient.address], readonly: [] });
    const { value: balance } = await rpc.getBalance(recipient.address, { commitment: 'confirmed' }).send();
    assert.equal(balance, SOL);
});

test('a wrapped-SOL account: created, synced, read as a token account, closed', async () => {
    const [ata] = await findAssociatedTokenPda({ owner: payer.address, mint: NATIVE_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const wrap = await signed([
        getCreateAssociatedTokenIdempotentInstruction({ payer, owner: payer.address, mint: NATIVE_MINT, ata }),
        getTransferSolInstruction({ source: payer, destination: ata, amount: lamports(3n * SOL) }),
        getSyncNativeInstruction({ account: ata }),
    ]);
    await sendAndConfirm(wrap, { commitment: 'confirmed' });
    const { value: amount } = await rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send();
    assert.equal(amount.amount, String(3n * SOL));
    assert.equal(amount.decimals, 9);
    const { value: info } = await rpc.getAccountInfo(ata, { commitment: 'confirmed', encoding: 'jsonParsed' }).send();
    assert.equal(info.data.parsed.info.isNative, true);
    assert.equal(info.data.parsed.info.mint, NATIVE_MINT);
    const { value: supply } = await rpc.getTokenSupply(NATIVE_MINT, { commitment: 'confirmed' }).send();
    assert.equal(supply.decimals, 9);

    const before = (await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value;
    const unwrap = await signed([
        getCloseAccountInstruction({ account: ata, destination: payer.address, owner: payer }),
    ]);
    await sendAndConfirm(unwrap, { commitment: 'confirmed' });
    const { value: gone } = await rpc.getAccountInfo(ata, { commitment: 'confirmed', encoding: 'base64' }).send();
    assert.equal(gone, null);
    const afterBalance = (await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value;
    assert.ok(afterBalance > before + 3n * SOL, `${afterBalance} <= ${before} + 3 SOL`);
});

test('slot and root subscriptions advance', async () => {
    const slots = await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: abort.signal });
    const [a, b] = await take(slots, 2);
    assert.equal(b.slot, a.slot + 1n);
    assert.equal(b.parent, a.slot);
    const roots = await rpcSubscriptions.rootNotifications().subscribe({ abortSignal: abort.signal });
    const [root] = await take(roots);
    assert.ok(root <= b.slot);
});
