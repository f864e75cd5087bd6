// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A token contract refused, reverted or answered false to a deposit's transfer.
error TransferFailed(address token, address deposit);
/// The recipient of a deposit's native coin refused it.
error NativeTransferFailed(address deposit);
/// Only the factory that deployed the implementation may move a deposit's money.
error NotFactory();

/// The code behind every deposit address: each deposit is an EIP-1167 clone of one implementation,
/// deployed by the DepositSweeper with CREATE2, so the address is known (and can be paid) before any
/// code is there. The clone holds the customer's tokens; only the sweeper can move them, and it pays
/// the gas itself, so a deposit never needs native coin. See docs/settlement.md.
contract DepositForwarder {
    // Read from the implementation's code, not from storage: a clone delegatecalls here, and an
    // immutable costs neither an initializer call nor a storage write per deposit. `msg.sender` is
    // the clone's caller, so the check holds for every clone.
    address private immutable factory;

    constructor() {
        factory = msg.sender;
    }

    /// Sends `amount` of `token` held by this deposit to `to`. Works with tokens that return a bool
    /// and with tokens that return nothing (USDT on Ethereum); a call to an address without code
    /// "succeeds" with no data, so that case also requires the token to have code.
    function transfer(address token, address to, uint256 amount) external {
        if (msg.sender != factory) revert NotFactory();
        bool ok;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, shl(224, 0xa9059cbb)) // transfer(address,uint256)
            mstore(add(ptr, 4), to)
            mstore(add(ptr, 36), amount)
            ok := call(gas(), token, 0, ptr, 68, 0, 32)
            switch returndatasize()
            case 0 { ok := and(ok, gt(extcodesize(token), 0)) }
            // A bool is one word and exactly 1 for true; shorter data or any other word is a refusal.
            default { ok := and(ok, and(gt(returndatasize(), 31), eq(mload(0), 1))) }
        }
        if (!ok) revert TransferFailed(token, address(this));
    }

    /// Sends all native coin at this deposit (sent to it by mistake, or before it had code) to `to`.
    function sendNative(address to) external returns (uint256 amount) {
        if (msg.sender != factory) revert NotFactory();
        amount = address(this).balance;
        (bool ok, ) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed(address(this));
    }

    // No receive or fallback: once deployed, a deposit refuses native coin instead of holding it.
}
