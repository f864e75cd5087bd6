// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DepositForwarder} from "./DepositForwarder.sol";

/// The factory and owner of every deposit address of one network. A deposit address is the CREATE2
/// address of an EIP-1167 clone of one DepositForwarder, for a `salt` per payment; nothing is
/// deployed until the deposit is first swept, in that same transaction. The owner (the network's
/// treasury key) signs and pays for every sweep, so no native coin is ever sent to a deposit.
/// See docs/settlement.md.
contract DepositSweeper {
    address public immutable owner;
    /// The DepositForwarder every deposit clones; deployed by this contract, so its address is
    /// this contract's first CREATE (nonce 1).
    address public immutable implementation;
    /// keccak256 of a clone's init code: the CREATE2 address needs only this and the salt.
    bytes32 private immutable cloneCodeHash;

    event Swept(bytes32 indexed salt, address indexed deposit, address indexed token, uint256 amount);
    event Forwarded(bytes32 indexed salt, address indexed deposit, address indexed token, address to, uint256 amount);
    event SweptNative(bytes32 indexed salt, address indexed deposit, address to, uint256 amount);

    error NotOwner();
    error LengthMismatch();
    error ZeroOwner();
    error DeployFailed(bytes32 salt);

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    constructor(address owner_) {
        if (owner_ == address(0)) revert ZeroOwner();
        owner = owner_;
        address impl = address(new DepositForwarder());
        implementation = impl;
        // EIP-1167's 55-byte init code: 10 bytes that return the 45-byte runtime, which
        // delegatecalls `impl` with the call's data and returns or reverts with its answer.
        cloneCodeHash = keccak256(
            abi.encodePacked(hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", impl, hex"5af43d82803e903d91602b57fd5bf3")
        );
    }

    /// The deposit address of `salt`, deployed or not.
    function depositAddress(bytes32 salt) public view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, cloneCodeHash)))));
    }

    /// Moves exactly `amounts[i]` of `token` from the deposit of `salts[i]` to `to`, for every i, in one
    /// transaction; any failure reverts all of it, so a sweep is recorded as done or not done, never half.
    function sweep(address token, address to, bytes32[] calldata salts, uint256[] calldata amounts) external onlyOwner {
        if (salts.length != amounts.length) revert LengthMismatch();
        for (uint256 i; i < salts.length; ) {
            bytes32 salt = salts[i];
            uint256 amount = amounts[i];
            address deposit = _deployed(salt);
            DepositForwarder(deposit).transfer(token, to, amount);
            emit Swept(salt, deposit, token, amount);
            unchecked {
                ++i;
            }
        }
    }

    /// Moves `amount` of `token` from one deposit straight to `to` (a refund to the customer).
    function forward(address token, bytes32 salt, address to, uint256 amount) external onlyOwner {
        address deposit = _deployed(salt);
        DepositForwarder(deposit).transfer(token, to, amount);
        emit Forwarded(salt, deposit, token, to, amount);
    }

    /// Moves all native coin at a deposit to `to`: a deposit address can be sent native coin before
    /// it has code, and nothing else would ever take it out.
    function sweepNative(bytes32 salt, address to) external onlyOwner {
        address deposit = _deployed(salt);
        uint256 amount = DepositForwarder(deposit).sendNative(to);
        emit SweptNative(salt, deposit, to, amount);
    }

    /// The deposit of `salt`, deployed first if it has no code yet.
    function _deployed(bytes32 salt) private returns (address deposit) {
        deposit = depositAddress(salt);
        // The size check also warms the address, so the call that follows pays no cold access.
        if (deposit.code.length != 0) return deposit;
        address impl = implementation;
        address created;
        assembly ("memory-safe") {
            // The init code laid out in scratch space (0x09..0x40), as OpenZeppelin's Clones does.
            mstore(0x00, or(shr(0xe8, shl(0x60, impl)), 0x3d602d80600a3d3981f3363d3d373d3d3d363d73000000))
            mstore(0x20, or(shl(0x78, impl), 0x5af43d82803e903d91602b57fd5bf3))
            created := create2(0, 0x09, 0x37, salt)
        }
        if (created != deposit) revert DeployFailed(salt);
    }
}
