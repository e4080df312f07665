// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @title AssetCollection
/// @notice NFT collection issued by the service: the owner mints items with a per-token URI, or many at once
/// (airdrops) whose metadata is at the items base URI followed by the token id; holders transfer and burn;
/// ERC-2981 default royalty (an item may carry its own); optional cap on the number of tokens ever minted.
contract AssetCollection is ERC721, ERC721URIStorage, ERC721Burnable, ERC2981, Ownable {
    /// @notice The cap of `maxSupply` tokens ever minted has been reached.
    error MaxSupplyReached(uint256 maxSupply);
    /// @notice A batch mint without recipients.
    error EmptyBatch();
    /// @notice A batch mint's per-item arrays differ in length.
    error BatchLengthMismatch(uint256 recipients, uint256 values);

    uint256 private immutable _maxSupply;
    uint256 private _totalMinted;
    string private _contractURI;
    string private _itemsBaseURI;

    /// @param itemsBaseURI_ Metadata of items minted without a URI of their own: this followed by the token id;
    /// empty, such items have no URI.
    /// @param maxSupply_ Cap on tokens ever minted (burned ones still count); 0 means unlimited.
    /// @param royaltyReceiver Default ERC-2981 receiver; zero together with `royaltyBps` 0 means no royalty.
    /// @param royaltyBps Default royalty in basis points (0..10000).
    constructor(
        string memory name_,
        string memory symbol_,
        string memory contractURI_,
        string memory itemsBaseURI_,
        uint256 maxSupply_,
        address royaltyReceiver,
        uint96 royaltyBps,
        address initialOwner
    ) ERC721(name_, symbol_) Ownable(initialOwner) {
        _contractURI = contractURI_;
        _itemsBaseURI = itemsBaseURI_;
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

    /// @notice Mints the next `to.length` token ids, in order, without URIs of their own (the items base URI
    /// followed by the id is their metadata); they have the default royalty. All or none: the whole batch must fit
    /// under max supply.
    function mintBatch(address[] calldata to) external onlyOwner returns (uint256 firstTokenId) {
        uint256 count = to.length;
        firstTokenId = _reserve(count);
        // Ids fit: _reserve added them up checked. Plain _mint as in `mint`, and no URI storage: that
        // store is most of a single mint's gas.
        unchecked {
            for (uint256 i; i < count; ++i) {
                _mint(to[i], firstTokenId + i);
            }
        }
    }

    /// @notice As `mintBatch`, each token `i` with its own ERC-2981 royalty of `royaltyBps[i]` to `royaltyReceiver`.
    function mintBatchWithRoyalty(
        address[] calldata to,
        address royaltyReceiver,
        uint96[] calldata royaltyBps
    ) external onlyOwner returns (uint256 firstTokenId) {
        uint256 count = to.length;
        if (royaltyBps.length != count) revert BatchLengthMismatch(count, royaltyBps.length);
        firstTokenId = _reserve(count);
        unchecked {
            for (uint256 i; i < count; ++i) {
                uint256 tokenId = firstTokenId + i;
                _mint(to[i], tokenId);
                _setTokenRoyalty(tokenId, royaltyReceiver, royaltyBps[i]);
            }
        }
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

    /// @dev Takes the next `count` ids at once (one counter write per batch), the whole batch under max supply.
    /// Updating the counter before minting is safe: plain _mint and royalty writes make no external call.
    function _reserve(uint256 count) private returns (uint256 firstTokenId) {
        if (count == 0) revert EmptyBatch();
        uint256 minted = _totalMinted;
        uint256 last = minted + count;
        if (_maxSupply != 0 && last > _maxSupply) {
            revert MaxSupplyReached(_maxSupply);
        }
        _totalMinted = last;
        firstTokenId = minted + 1;
    }

    function _baseURI() internal view override returns (string memory) {
        return _itemsBaseURI;
    }

    /// @notice A token's own URI (`mint`) as it is; otherwise the items base URI followed by the id; otherwise "".
    /// @dev Not ERC721URIStorage's, which prefixes the base URI to a token's own URI when both are set.
    function tokenURI(uint256 tokenId) public view override(ERC721, ERC721URIStorage) returns (string memory) {
        _requireOwned(tokenId);
        string memory own = _suffixURI(tokenId);
        if (bytes(own).length > 0) {
            return own;
        }
        string memory base = _baseURI();
        return bytes(base).length > 0 ? string.concat(base, Strings.toString(tokenId)) : "";
    }

    function supportsInterface(
        bytes4 interfaceId
    ) public view override(ERC721, ERC721URIStorage, ERC2981) returns (bool) {
        return super.supportsInterface(interfaceId);
    }
}
