// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {StablecoinStandIn} from "./TestToken.sol";

/// The USDT-like token: as Tether's contract on Ethereum mainnet, `transfer` and `transferFrom`
/// return no data at all, so a caller that decodes a bool from them fails. Everything that moves
/// USDT on the dev chain meets the same contract it meets on mainnet.
contract TestTokenNoReturn is StablecoinStandIn {
    constructor(string memory name_, string memory symbol_) StablecoinStandIn(name_, symbol_) {}

    function transfer(address to, uint256 value) external {
        _transfer(msg.sender, to, value);
    }

    function transferFrom(address from, address to, uint256 value) external {
        _spendAllowance(from, value);
        _transfer(from, to, value);
    }
}
