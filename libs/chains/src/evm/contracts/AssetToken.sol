// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Burnable} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Burnable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title AssetToken
/// @notice Fungible token issued by the service: the owner (a managed wallet) mints, holders burn their own balance.
contract AssetToken is ERC20, ERC20Burnable, Ownable {
    /// @notice A batch mint without recipients.
    error EmptyBatch();
    /// @notice A batch mint's recipients and amounts differ in length.
    error BatchLengthMismatch(uint256 recipients, uint256 amounts);

    uint8 private immutable _decimals;

    /// @param initialSupply Amount in base units minted to `initialOwner` at deploy.
    constructor(
        string memory name_,
        string memory symbol_,
        uint8 decimals_,
        uint256 initialSupply,
        address initialOwner
    ) ERC20(name_, symbol_) Ownable(initialOwner) {
        _decimals = decimals_;
        if (initialSupply > 0) {
            _mint(initialOwner, initialSupply);
        }
    }

    /// @notice Mints `amount` base units to `to`. Reverts with OwnableUnauthorizedAccount for non-owners.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @notice Mints `amounts[i]` base units to `to[i]` for each i (an airdrop in one transaction); all or none.
    function mintBatch(address[] calldata to, uint256[] calldata amounts) external onlyOwner {
        uint256 count = to.length;
        if (count == 0) revert EmptyBatch();
        if (amounts.length != count) revert BatchLengthMismatch(count, amounts.length);
        for (uint256 i; i < count; ++i) {
            _mint(to[i], amounts[i]);
        }
    }

    /// @inheritdoc ERC20
    function decimals() public view override returns (uint8) {
        return _decimals;
    }
}
