/**
 * REST bodies that more than one module writes or reads: grant-service's and inventory-service's answers
 * that rdc reads, and the machine-key registration both services take. One record each, for the service that writes the JSON
 * (and describes it in its OpenAPI document) and the client that reads it.
 */
package io.rediacc.gpu.contracts.api;
