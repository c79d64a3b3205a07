"""Token data: balances, transactions, deposits, stats, and the MCC price oracle."""
