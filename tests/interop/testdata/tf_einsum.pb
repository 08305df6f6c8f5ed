
?
xPlaceholder* 
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0
î
%einsum/Einsum/ReadVariableOp/resourceConst*
dtype0*°
value¦B£"KÍ>ˆÚ2>Í‰¿šõŸ>…¥¾ãZ½”>M>Ó:¸½¬Ş«>8Üi>F5ò¾¼!¾]N­=¼£0¾Zá„½¥±u>d¡Â=7h¾jV=Ø<¾O§º¾›“­¾4N°=;/
¼`–Õ:Æ°¾<b½OŸ¾JK¾cèJ½ }Ô¾R™M>ş>?Tó>Ÿ0 ¾Ë¦½
ğ
'einsum_3/Einsum/ReadVariableOp/resourceConst*°
value¦B£"Oêî¾ìè½ËØ>5>Çy¾‹Ë·=ĞŸ±>Ê?ÁHW¾º½„¾»…<˜à`¿7"#¾­|¦½ ¾nHó¾Úİ–½ı’n¾ä²h>æ¾y­½Š½¢[.>…†C¿«GÑ½‘Zi>¤8Ş½›‰ê¾s©È=EÜÎ=M0¦½%²¾‰c¾¢ÅÀ½Z{†¾>x¿*
dtype0
Ó
'einsum_4/Einsum/ReadVariableOp/resourceConst*
dtype0*“
value‰B†"x-Sl¾í½—¼ÔÄ¾Rº¹¼™Í<È¶‰>ò@)?nÍ`>r´×¾ªL¿u&è¼¸q¯<¸v²¾õ"§=•šk¾yf÷=•ÿÇ½v3ô=à¿p²¾C˜6½[ÜÚ¾G?' &¾êÕ>ıL¾VK½ëØµ>Õ«º=ÿk=
€
einsum/Einsum/ReadVariableOpIdentity%einsum/Einsum/ReadVariableOp/resource*
T0*&
 _has_manual_control_dependencies(
g
einsum/EinsumEinsumxeinsum/Einsum/ReadVariableOp*
T0*
N*
equationabc,cde->abde
h
einsum_1/EinsumEinsumeinsum/Einsumeinsum/Einsum*
T0*
N*
equationaecd,abcd->acbe
,
SoftmaxSoftmaxeinsum_1/Einsum*
T0
b
einsum_2/EinsumEinsumSoftmaxeinsum/Einsum*
T0*
N*
equationacbe,aecd->abcd
„
einsum_3/Einsum/ReadVariableOpIdentity'einsum_3/Einsum/ReadVariableOp/resource*
T0*&
 _has_manual_control_dependencies(
y
einsum_3/EinsumEinsumeinsum_2/Einsumeinsum_3/Einsum/ReadVariableOp*
T0*
N*
equationabcd,cde->abe
„
einsum_4/Einsum/ReadVariableOpIdentity'einsum_4/Einsum/ReadVariableOp/resource*
T0*&
 _has_manual_control_dependencies(
y
einsum_4/EinsumEinsumeinsum_3/Einsumeinsum_4/Einsum/ReadVariableOp*
T0*
N*
equation...b,bc->...c
•
NoOpNoOp^einsum/Einsum/ReadVariableOp^einsum_3/Einsum/ReadVariableOp^einsum_4/Einsum/ReadVariableOp*&
 _has_manual_control_dependencies(
5
IdentityIdentityeinsum_4/Einsum^NoOp*
T0"ª