// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title AssetCollection
/// @notice NFT collection issued by the service: the owner mints items with a per-token URI, holders transfer
/// and burn, ERC-2981 default royalty (an item may carry its own), optional cap on the number of tokens ever minted.
contract AssetCollection is ERC721, ERC721URIStorage, ERC721Burnable, ERC2981, Ownable {
    /// @notice The cap of `maxSupply` tokens ever minted has been reached.
    error MaxSupplyReached(uint256 maxSupply);

    uint256 private immutable _maxSupply;
    uint256 private _totalMinted;
    string private _contractURI;

    /// @param maxSupply_ Cap on tokens ever minted (burned ones still count); 0 means unlimited.
    /// @param royaltyReceiver Default ERC-2981 receiver; zero together with `royaltyBps` 0 means no royalty.
    /// @param royaltyBps Default royalty in basis points (0..10000).
    constructor(
        string memory name_,
        string memory symbol_,
        string memory contractURI_,
        uint256 maxSupply_,
        address royaltyReceiver,
        uint96 royaltyBps,
        address initialOwner
    ) ERC721(name_, symbol_) Ownable(initialOwner) {
        _contractURI = contractURI_;
        _maxSupply = maxSupply_;
        // A zero receiver with a non-zero fee still reaches OZ's check and reverts.
        if (royaltyReceiver != address(0) || royaltyBps != 0) {
            _setDefaultRoyalty(royaltyReceiver, royaltyBps);
        }
    }

    /// @notice Mints the next token id (sequential from 1) to `to` with metadata `uri`; it has the default royalty.
    function mint(address to, string calldata uri) external onlyOwner returns (uint256 tokenId) {
        tokenId = _mintNext(to, uri);
    }

    /// @notice As `mint`, with the token's own ERC-2981 royalty in place of the default one.
    /// @param royaltyBps Basis points (0..10000); 0 means no royalty for this token, whatever the default.
    function mintWithRoyalty(
        address to,
        string calldata uri,
        address royaltyReceiver,
        uint96 royaltyBps
    ) external onlyOwner returns (uint256 tokenId) {
        tokenId = _mintNext(to, uri);
        _setTokenRoyalty(tokenId, royaltyReceiver, royaltyBps);
    }

    /// @notice Burns `tokenId` (its holder or an approved operator) and drops its own royalty, if any.
    function burn(uint256 tokenId) public override {
        super.burn(tokenId);
        // Ids are never minted again, so this only frees storage (a gas refund for the burner).
        _resetTokenRoyalty(tokenId);
    }

    /// @notice Number of tokens ever minted, burned ones included.
    function totalMinted() external view returns (uint256) {
        return _totalMinted;
    }

    /// @notice Cap on tokens ever minted; 0 means unlimited.
    function maxSupply() external view returns (uint256) {
        return _maxSupply;
    }

    /// @notice Collection-level metadata URI (ERC-7572 style).
    function contractURI() external view returns (string memory) {
        return _contractURI;
    }

    function _mintNext(address to, string calldata uri) private returns (uint256 tokenId) {
        tokenId = ++_totalMinted;
        if (_maxSupply != 0 && tokenId > _maxSupply) {
            revert MaxSupplyReached(_maxSupply);
        }
        // Plain _mint, not _safeMint: a recipient contract without onERC721Received must not make an
        // issuance fail, and skipping the callback keeps the owner's mint free of external calls.
        _mint(to, tokenId);
        _setTokenURI(tokenId, uri);
    }

    function tokenURI(uint256 tokenId) public view override(ERC721, ERC721URIStorage) returns (string memory) {
        return super.tokenURI(tokenId);
    }

    function supportsInterface(
        bytes4 interfaceId
    ) public view override(ERC721, ERC721URIStorage, ERC2981) returns (bool) {
        return super.supportsInterface(interfaceId);
    }
}
