// Paylike's amount type lives with the card rules in Gateway (the server checks the `test`
// object's limits with it); an app that imports PaymentEngine gets it too.
@_exported import struct Gateway.PaymentAmount
