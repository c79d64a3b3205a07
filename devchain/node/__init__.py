"""Local Solana chain node: a JSON-RPC server over LiteSVM (see server.py, rpc/, svm.py)."""
