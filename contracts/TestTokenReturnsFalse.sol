// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {StablecoinStandIn} from "./TestToken.sol";

/// For tests only: a token whose `transfer` refuses by returning false instead of reverting, as some
/// old ERC-20s do. A caller that ignores the answer would record a transfer that never happened.
contract TestTokenReturnsFalse is StablecoinStandIn {
    constructor(string memory name_, string memory symbol_) StablecoinStandIn(name_, symbol_) {}

    function transfer(address, uint256) external pure returns (bool) {
        return false;
    }
}
